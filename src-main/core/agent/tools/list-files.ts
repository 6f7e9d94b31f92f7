import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { resolveProjectPath } from './project-path'
import { ToolError, defineTool, describeFileError } from './types'

/** Folders never listed: version control and dependencies. */
export const skippedFolders = new Set(['.git', 'node_modules'])
export const maxListedEntries = 1_000

const parameters = z.object({
  path: z.string().min(1).optional().describe('Folder, relative to the project folder. Default: the project folder.'),
  recursive: z.boolean().optional().describe('List sub-folders too. Default false.'),
})

export const listFilesTool = defineTool({
  name: 'list_files',
  description:
    'List a folder of the project (paths relative to the project; folders end with "/"). Skips .git and node_modules. Set recursive to walk sub-folders.',
  parameters,
  async execute(args, context) {
    const shownPath = args.path ?? '.'
    const { absolute, relative } = await resolveProjectPath(context.projectDir, shownPath)
    try {
      if (!(await stat(absolute)).isDirectory()) throw new ToolError(`${shownPath} is a file; use read_file`)
    } catch (error) {
      throw describeFileError(error, shownPath) ?? error
    }
    const entries: string[] = []
    const complete = await walk(absolute, relative === '.' ? '' : relative, args.recursive ?? false, entries)
    if (entries.length === 0) return `(${relative} is empty)`
    const more = complete ? '' : `\n[listing stopped at ${maxListedEntries} entries; list a sub-folder to see more]`
    return entries.join('\n') + more
  },
})

/** Depth-first, sorted; symlinks are listed but never followed. Returns false when capped. */
async function walk(folder: string, prefix: string, recursive: boolean, entries: string[]): Promise<boolean> {
  const children = await readdir(folder, { withFileTypes: true })
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const child of children) {
    if (child.isDirectory() && skippedFolders.has(child.name)) continue
    if (entries.length >= maxListedEntries) return false
    const path = prefix ? `${prefix}/${child.name}` : child.name
    if (!child.isDirectory()) {
      entries.push(path)
      continue
    }
    entries.push(`${path}/`)
    if (recursive && !(await walk(join(folder, child.name), path, recursive, entries))) return false
  }
  return true
}
