import { z } from 'zod'
import { openProjectFile, readUpTo } from './project-file'
import { ToolError, defineTool, describeFileError } from './types'

/** Files larger than this are refused rather than read into memory. */
const maxFileBytes = 10 * 1024 * 1024

const parameters = z.object({
  path: z.string().min(1).describe('File path, relative to the project folder.'),
  offset: z.number().int().min(1).optional().describe('First line to read (1-based). Default 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to read. Default: to the end.'),
})

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file of the project. Lines come numbered ("<line>\\t<text>") so you can cite path:line. Use offset and limit for parts of large files.',
  parameters,
  async execute(args, context) {
    const { text, relative } = await readText(context.projectDir, args.path)
    if (text === '') return `(${relative} is empty)`
    const lines = text.split(/\r?\n/)
    if (lines.at(-1) === '') lines.pop()
    const first = args.offset ?? 1
    if (first > lines.length) return `(${relative} has ${lines.length} lines; offset ${first} is past the end)`
    const last = Math.min(lines.length, first - 1 + (args.limit ?? lines.length))
    const width = String(last).length
    const numbered = lines.slice(first - 1, last).map((line, index) => `${String(first + index).padStart(width)}\t${line}`)
    const rest = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; use offset to read more)` : ''
    return numbered.join('\n') + rest
  },
})

/**
 * The file's text. It is opened without following a symlink swapped in after the path check, and
 * FIFOs, sockets and devices are refused (project-file.ts), so a read cannot hang or never end.
 */
async function readText(projectDir: string, shownPath: string): Promise<{ text: string; relative: string }> {
  const file = await openProjectFile(projectDir, shownPath, 'read')
  try {
    if (file.info.isDirectory()) throw new ToolError(`${shownPath} is a directory; use list_files`)
    const tooBig = (size: number | string): ToolError =>
      new ToolError(`${shownPath} is ${size} bytes; files over ${maxFileBytes} bytes are not read`)
    if (file.info.size > maxFileBytes) throw tooBig(file.info.size)
    const content = await readUpTo(file.handle, maxFileBytes, file.info.size)
    if (content.length > maxFileBytes) throw tooBig(`now over ${maxFileBytes}`)
    if (content.subarray(0, 8192).includes(0)) throw new ToolError(`${shownPath} looks like a binary file`)
    return { text: content.toString('utf8'), relative: file.relative }
  } catch (error) {
    throw describeFileError(error, shownPath) ?? error
  } finally {
    await file.handle.close()
  }
}
