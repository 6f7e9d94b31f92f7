import { mkdir, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { z } from 'zod'
import { resolveProjectPath } from './project-path'
import { ToolError, defineTool, describeFileError } from './types'

const parameters = z.object({
  path: z.string().min(1).describe('File path, relative to the project folder. Missing folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
})

/**
 * Creates or replaces a file inside the project. The path is judged by its real path (a new
 * file by its nearest existing folder's), so a symlink pointing outside is refused.
 */
export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, or replace a file\'s whole content, inside the project. Creates missing folders. To change part of an existing file, prefer edit_file.',
  parameters,
  async execute(args, context) {
    const { absolute, relative } = await resolveProjectPath(context.projectDir, args.path)
    try {
      const existing = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined
        throw error
      })
      if (existing?.isDirectory()) throw new ToolError(`${args.path} is a directory`)
      await mkdir(dirname(absolute), { recursive: true })
      await writeFile(absolute, args.content, 'utf8')
      const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
      const bytes = Buffer.byteLength(args.content, 'utf8')
      return `${existing ? 'Replaced' : 'Created'} ${relative} (${lines} line${lines === 1 ? '' : 's'}, ${bytes} byte${bytes === 1 ? '' : 's'}).`
    } catch (error) {
      throw describeFileError(error, args.path) ?? error
    }
  },
})
