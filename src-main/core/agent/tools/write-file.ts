import { z } from 'zod'
import { maxHashedBytes, sameVersion, tracePath, unreadVersion, versionOf, type FileVersion } from '../../protocol/file-change'
import { openProjectFile, readUpTo, replaceContent, type ProjectFile } from './project-file'
import { defineTool, describeFileError } from './types'

const parameters = z.object({
  path: z.string().min(1).describe('File path, relative to the project folder. Missing folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
})

/**
 * Creates or replaces a file inside the project. The path is judged by its real path (a new
 * file by its nearest existing folder's), so a symlink pointing outside is refused; the file is
 * opened without following a symlink swapped in after that check, a file with several hard links
 * is refused, and files inside .git are not written (project-file.ts).
 */
export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    "Create a file, or replace a file's whole content, inside the project. Creates missing folders. To change part of an existing file, prefer edit_file.",
  parameters,
  async execute(args, context) {
    const file = await openProjectFile(context.projectDir, args.path, 'write')
    let before: FileVersion | null = null
    try {
      if (!file.created) before = await readVersion(file)
      await replaceContent(file.handle, args.content)
    } catch (error) {
      throw describeFileError(error, args.path) ?? error
    } finally {
      await file.handle.close()
    }
    const after = versionOf(Buffer.from(args.content, 'utf8'))
    if (!sameVersion(before, after)) {
      context.recordChange?.({ path: tracePath(file.relative), kind: file.created ? 'created' : 'modified', before, after })
    }
    const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
    const bytes = Buffer.byteLength(args.content, 'utf8')
    return `${file.created ? 'Created' : 'Replaced'} ${file.relative} (${lines} line${lines === 1 ? '' : 's'}, ${bytes} byte${bytes === 1 ? '' : 's'}).`
  },
})

/** The content a write replaces, hashed (and kept within the cap) unless it is huge. */
async function readVersion(file: ProjectFile): Promise<FileVersion> {
  if (file.info.size > maxHashedBytes) return unreadVersion(file.info.size)
  const bytes = await readUpTo(file.handle, maxHashedBytes, file.info.size)
  return bytes.byteLength > maxHashedBytes ? unreadVersion(bytes.byteLength) : versionOf(bytes)
}
