import { z } from 'zod'
import { defineTool } from './types'

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'A regular expression in RE2 syntax (as in Go and ripgrep: like JavaScript\'s, without backreferences or lookaround) matched against each line, e.g. "function\\\\s+load" (case-sensitive; start with "(?i)" to ignore case).',
    ),
  path: z.string().min(1).optional().describe('File or folder to search, relative to the project folder. Default: the project folder.'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only files whose path matches, e.g. "*.ts", "**/*.md", "src/**/*.{ts,tsx}". Without a "/" it matches the file name.'),
})

/**
 * Searches file contents with a regular expression: `path:line:text` hits, in path order, capped
 * at 200. Walks with fs (no external binary); skips heavy folders, binary files and files over
 * 2 MB; does not follow symbolic links. Patterns and globs run on RE2 (re2js), in time linear in
 * the text: a pattern from a hostile file (`(a+)+$`) cannot stall the agent.
 */
export const searchTool = defineTool({
  name: 'search',
  description:
    'Search the contents of the project\'s files with a regular expression (RE2 syntax: no backreferences or lookaround). Returns "path:line:text" hits (at most 200). Skips .git, node_modules, build output, binary files and files over 2 MB. Narrow it with path (a file or folder) and glob (e.g. "*.ts", "src/**/*.tsx").',
  parameters,
  async execute(args, context) {
    // RE2 (re2js) and the walk are loaded on the first search, not by every agent process at start.
    const { searchProject } = await import('./search-files')
    return searchProject(args, context)
  },
})
