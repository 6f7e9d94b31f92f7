import { ArborError } from '../errors'
import { isMcpName, mcpServerOf } from './mcp-names'

/** A profile (agent type): what an agent may do and how much. product.md §2. */
export interface Profile {
  name: string
  description: string
  system_prompt: string
  tools: string[]
  max_steps: number
  /** null: the model's own window. */
  context_token_budget: number | null
  /** null: the job's budget. */
  total_token_budget: number | null
  /** `main`, `light` (falls back to main when no light model is configured) or a model id. */
  model: 'main' | 'light' | string
  result_contract: 'text' | 'explore'
  can_delegate: boolean
  /** Declared read-only: no writing tool may be listed. A profile with the `explore` contract is read-only anyway. */
  read_only?: boolean
  /** `worktree`: an agent of this profile works in its own git worktree on its own branch (worktrees/worktrees.ts). Absent: in its parent's folder. */
  isolation?: 'worktree'
  /** The MCP servers its agents may use, by name (`.mcp.json`, or inline in its file); their tools are `mcp__<server>__<tool>`. */
  mcp_servers?: string[]
  /** MCP tools its agents call without approval: `mcp__srv__tool`, or `mcp__srv` / `mcp__srv__*` for all of a server's. */
  mcp_trusted?: string[]
}

/** Every tool name of product.md §2; a profile may list only these. */
export const knownTools = ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash', 'task', 'attempt_completion'] as const
export const readOnlyTools = ['read_file', 'list_files', 'search', 'attempt_completion']
export const writingTools = ['write_file', 'edit_file', 'bash', 'task']
export const completionTool = 'attempt_completion'

export const builtinProfiles: Record<string, Profile> = {
  general: {
    name: 'general',
    description: 'The default root agent: plans, delegates with `task`, and reports.',
    system_prompt:
      'You are Arbor, a code agent working in the project folder. Delegate self-contained subtasks with the task tool, then finish with attempt_completion.',
    tools: [...knownTools],
    max_steps: 50,
    context_token_budget: null,
    total_token_budget: null,
    model: 'main',
    result_contract: 'text',
    can_delegate: true,
  },
  explore: {
    name: 'explore',
    description: 'Read-only investigation of the repository; returns one explore JSON object.',
    system_prompt:
      'You are an Explore Agent. Inspect the repository with read-only tools and return exactly one JSON object: {"status":"completed|partial","summary":"...","findings":["..."],"evidence":["relative/path:line"],"unresolved_questions":["..."]}. Do not use markdown fences.',
    tools: [...readOnlyTools],
    max_steps: 12,
    context_token_budget: 16_000,
    total_token_budget: 32_000,
    model: 'light',
    result_contract: 'explore',
    can_delegate: false,
  },
  worker: {
    name: 'worker',
    description: 'Does a self-contained change with every tool but task.',
    system_prompt: 'You are a worker agent. Complete the task in the project folder, then call attempt_completion.',
    tools: knownTools.filter((tool) => tool !== 'task'),
    max_steps: 30,
    context_token_budget: 64_000,
    total_token_budget: 200_000,
    model: 'main',
    result_contract: 'text',
    can_delegate: false,
  },
}

/** One thing wrong with a profile; `field` is the profile field (or front matter key) at fault. */
export interface ProfileProblem {
  field: string
  message: string
}

/** A profile that may not load (a configuration error, thrown when the profile is defined). */
export class ProfileError extends ArborError<'invalid_profile'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.ProfileError')

  constructor(
    readonly profile: string,
    readonly problems: ProfileProblem[],
  ) {
    super(
      'invalid_profile',
      `profile "${profile}" is invalid: ${problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`,
    )
    this.name = 'ProfileError'
  }
}

export const isReadOnly = (profile: Pick<Profile, 'result_contract' | 'read_only'>): boolean =>
  profile.read_only === true || profile.result_contract === 'explore'

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/
const isPositiveInteger = (value: unknown): boolean => typeof value === 'number' && Number.isInteger(value) && value > 0

/** Everything wrong with a profile (product.md §2); empty when it may load. */
export function profileProblems(profile: Profile): ProfileProblem[] {
  const problems: ProfileProblem[] = []
  const problem = (field: string, message: string) => problems.push({ field, message })
  if (!namePattern.test(profile.name)) {
    problem('name', `"${profile.name}" is not a valid name (letters, digits, "-", "_", "."; it is the task tool's subagent_type)`)
  }
  if (profile.description.trim() === '') problem('description', 'must not be empty')
  if (profile.system_prompt.trim() === '') problem('system_prompt', 'must not be empty')
  const servers = profile.mcp_servers ?? []
  const unknown = profile.tools.filter((tool) => !(knownTools as readonly string[]).includes(tool) && !isMcpName(tool))
  const mcpOutside = (names: readonly string[]) => names.filter((name) => !servers.includes(mcpServerOf(name) ?? ''))
  const strayMcp = mcpOutside(profile.tools.filter(isMcpName))
  if (strayMcp.length > 0) problem('tools', `names MCP tool ${list(strayMcp)} of a server the profile does not list in mcpServers`)
  const trusted = profile.mcp_trusted ?? []
  const badTrusted = [...trusted.filter((name) => !isMcpName(name)), ...mcpOutside(trusted.filter(isMcpName))]
  if (badTrusted.length > 0)
    problem('mcpTrusted', `${list(badTrusted)}: only MCP tools of the profile's own servers (mcp__<server>__<tool>) can be trusted`)
  if (unknown.length > 0) problem('tools', `unknown tool ${list(unknown)}; known tools: ${knownTools.join(', ')}`)
  if (profile.tools.includes('task') && !profile.can_delegate) {
    problem('tools', 'lists "task" but the profile may not delegate (set can_delegate: true, or remove task)')
  }
  if (isReadOnly(profile)) {
    const writing = profile.tools.filter((tool) => writingTools.includes(tool))
    const why = profile.result_contract === 'explore' ? 'its result contract is explore' : 'it is declared read-only'
    if (writing.length > 0) problem('tools', `is read-only (${why}) but lists the writing tool ${list(writing)}`)
  }
  if (!isPositiveInteger(profile.max_steps)) problem('max_steps', 'must be a positive integer')
  for (const field of ['context_token_budget', 'total_token_budget'] as const) {
    if (profile[field] !== null && !isPositiveInteger(profile[field])) problem(field, 'must be a positive integer or null')
  }
  if (profile.model.trim() === '') problem('model', 'must be main, light or a model id')
  if (profile.result_contract !== 'text' && profile.result_contract !== 'explore') problem('result_contract', 'must be text or explore')
  return problems
}

/**
 * Checks a profile as it loads and returns it ready to run: its tools deduplicated, with
 * `attempt_completion` always added. Throws a ProfileError naming the profile and each field at fault.
 */
export function validateProfile(profile: Profile): Profile {
  const problems = profileProblems(profile)
  if (problems.length > 0) throw new ProfileError(profile.name, problems)
  return { ...profile, tools: [...new Set([...profile.tools, completionTool])] }
}

/**
 * The model an agent runs on: `light` falls back to the main model when no light model is
 * configured (product.md §3); a model id is used as given.
 */
export function resolveModel(choice: string, settings: { model: string; light_model?: string | null }): string {
  if (choice === 'light') return settings.light_model ?? settings.model
  if (choice === 'main') return settings.model
  return choice
}

function list(names: string[]): string {
  return names.map((name) => `"${name}"`).join(', ')
}
