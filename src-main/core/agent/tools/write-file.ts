import { z } from 'zod'
import { openProjectFile, replaceContent } from './project-file'
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
    try {
      await replaceContent(file.handle, args.content)
    } catch (error) {
      throw describeFileError(error, args.path) ?? error
    } finally {
      await file.handle.close()
    }
    const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
    const bytes = Buffer.byteLength(args.content, 'utf8')
    return `${file.created ? 'Created' : 'Replaced'} ${file.relative} (${lines} line${lines === 1 ? '' : 's'}, ${bytes} byte${bytes === 1 ? '' : 's'}).`
  },
})
