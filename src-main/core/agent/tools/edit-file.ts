import { z } from 'zod'
import { tracePath, versionOf } from '../../protocol/file-change'
import { openProjectFile, readUpTo, replaceContent, type ProjectFile } from './project-file'
import { ToolError, defineTool, describeFileError, type ToolContext } from './types'

/** Files larger than this are not edited (as read_file does not read them). */
const maxEditBytes = 10 * 1024 * 1024

const parameters = z.object({
  path: z.string().min(1).describe('File path, relative to the project folder.'),
  old_string: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, including whitespace and indentation. It must occur exactly once in the file: include enough surrounding lines to make it unique.',
    ),
  new_string: z.string().describe('The text to put in its place.'),
})

/**
 * Replaces the one occurrence of `old_string` in a project file; 0 or 2+ occurrences are an error
 * result. The file is read and written through one descriptor, opened as write_file opens it
 * (project-file.ts): no symlink swapped in, no hard links, nothing inside .git.
 */
export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace one exact occurrence of old_string with new_string in a file of the project. old_string must match exactly once (whitespace included); read the file first.',
  parameters,
  async execute(args, context) {
    const file = await openProjectFile(context.projectDir, args.path, 'edit')
    try {
      return await edit(file, args, context)
    } catch (error) {
      throw describeFileError(error, args.path) ?? error
    } finally {
      await file.handle.close()
    }
  },
})

async function edit(file: ProjectFile, args: z.output<typeof parameters>, context: ToolContext): Promise<string> {
  const { relative } = file
  if (args.old_string === args.new_string) throw new ToolError('old_string and new_string are the same; nothing to change')
  if (file.info.size > maxEditBytes)
    throw new ToolError(`${args.path} is ${file.info.size} bytes; files over ${maxEditBytes} bytes are not edited`)
  const content = await readUpTo(file.handle, maxEditBytes, file.info.size)
  if (content.length > maxEditBytes)
    throw new ToolError(`${args.path} is now over ${maxEditBytes} bytes; files over ${maxEditBytes} bytes are not edited`)
  if (content.subarray(0, 8192).includes(0)) throw new ToolError(`${args.path} looks like a binary file`)
  const text = content.toString('utf8')
  let oldString = args.old_string
  let newString = args.new_string
  let at = occurrences(text, oldString)
  // A file with CRLF line endings, an old_string written with LF: match it with CRLF.
  if (at.count === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    const crlf = (value: string): string => value.replace(/\r?\n/g, '\r\n')
    const retried = occurrences(text, crlf(oldString))
    if (retried.count > 0) {
      at = retried
      oldString = crlf(oldString)
      newString = crlf(newString)
    }
  }
  if (at.count === 0) throw new ToolError(`old_string was not found in ${relative} (0 matches); read the file and copy the text exactly`)
  if (at.count > 1) {
    const lines = at.first.map((index) => lineOf(text, index)).join(', ')
    throw new ToolError(
      `old_string matches ${at.count} times in ${relative} (at lines ${lines}${at.count > at.first.length ? ', …' : ''}); include more surrounding text so it matches exactly once`,
    )
  }
  const index = at.first[0]!
  // Slices, not String.replace: "$&" and friends in new_string stay as written.
  const edited = text.slice(0, index) + newString + text.slice(index + oldString.length)
  await replaceContent(file.handle, edited)
  context.recordChange?.({
    path: tracePath(relative),
    kind: 'modified',
    before: versionOf(content),
    after: versionOf(Buffer.from(edited, 'utf8')),
  })
  const removed = oldString.split('\n').length
  const added = newString.split('\n').length
  return `Edited ${relative} at line ${lineOf(text, index)}: ${removed} line${removed === 1 ? '' : 's'} replaced by ${added}.`
}

/** How many times `search` occurs, overlapping occurrences included ("aa" occurs twice in "aaa"), and where the first few start. */
function occurrences(text: string, search: string): { count: number; first: number[] } {
  const first: number[] = []
  let count = 0
  for (let index = text.indexOf(search); index >= 0; index = text.indexOf(search, index + 1)) {
    count += 1
    if (first.length < 10) first.push(index)
  }
  return { count, first }
}

const lineOf = (text: string, index: number): number => {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line += 1
  return line
}
