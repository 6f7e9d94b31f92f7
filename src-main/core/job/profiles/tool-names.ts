import { knownTools } from '../profiles'
import { isMcpName } from '../mcp-names'

/** Claude Code's tool names and ours (product.md §2). */
export const claudeToolNames: Record<string, string> = {
  Read: 'read_file',
  Glob: 'list_files',
  LS: 'list_files',
  Grep: 'search',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Bash: 'bash',
  Task: 'task',
}

/** Where a profile file lives: `.arbor/agents` (our format) or `.claude/agents` (Claude Code's). */
export type ProfileSource = 'arbor' | 'claude'

export interface MappedTools {
  tools: string[]
  /** Names that are neither ours nor Claude Code's mapped ones. */
  unknown: string[]
}

/**
 * A front matter `tools` value (a list, or Claude Code's comma-separated string) as our tool
 * names: ours pass through, Claude Code's are mapped, the rest are returned as unknown.
 */
export function mapToolNames(value: string | string[]): MappedTools {
  const names = (Array.isArray(value) ? value : value.split(',')).map((name) => name.trim()).filter((name) => name !== '')
  const tools: string[] = []
  const unknown: string[] = []
  for (const name of names) {
    const ours = (knownTools as readonly string[]).includes(name) || isMcpName(name) ? name : claudeToolNames[name]
    if (ours === undefined) unknown.push(name)
    else if (!tools.includes(ours)) tools.push(ours)
  }
  return { tools, unknown }
}
