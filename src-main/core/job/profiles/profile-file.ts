import { z } from 'zod'
import {
  builtinProfiles,
  knownTools,
  profileProblems,
  readOnlyTools,
  validateProfile,
  type Profile,
  type ProfileProblem,
} from '../profiles'
import { parseFrontMatter } from './front-matter'
import { mapToolNames, type ProfileSource } from './tool-names'
import { readServer, type McpServerSpec } from '../mcp-config'
import { isMcpName, mcpPrefix, mcpServerOf } from '../mcp-names'

/** One profile file read: the profile when it may load, and what was wrong or ignored. */
export interface ProfileFile {
  profile?: Profile
  /** Each with the front matter field at fault (`front matter` for the file as a whole, `body` for the prompt). */
  errors: ProfileProblem[]
  warnings: string[]
  /** The MCP servers its front matter defines inline (`mcpServers: [{name: {...}}]`), by name; `source` is set by the loader. */
  mcpInline?: Record<string, McpServerSpec>
}

const required = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
})
const count = (what: string) => z.number(required(what)).int(`must be ${what}`).positive(`must be ${what}`)
const budget = count('a positive integer or null').nullable().optional()

const frontMatterSchema = z.object({
  name: z.string(required('a string')).trim().min(1, 'must not be empty'),
  description: z.string(required('a string')).trim().min(1, 'must not be empty'),
  tools: z.union([z.string(), z.array(z.string())], { error: 'must be a list of tool names or a comma-separated string' }).nullish(),
  model: z.string(required('main, light, inherit or a model id')).trim().min(1, 'must not be empty').nullish(),
  max_steps: count('a positive integer').optional(),
  context_token_budget: budget,
  total_token_budget: budget,
  result: z.enum(['text', 'explore'], { error: 'must be text or explore' }).optional(),
  can_delegate: z.boolean(required('true or false')).optional(),
  read_only: z.boolean(required('true or false')).optional(),
  isolation: z.enum(['worktree'], { error: 'must be worktree (or left out)' }).optional(),
  mcpServers: z
    .union([z.array(z.union([z.string(), z.record(z.string(), z.unknown())])), z.record(z.string(), z.unknown())], {
      error: 'must be a list of server names (from .mcp.json) and/or {name: {command, args, env} | {type: http, url, headers}}',
    })
    .optional(),
  mcpTrusted: z.array(z.string(), { error: 'must be a list of MCP tool names (mcp__<server>__<tool>)' }).optional(),
})
type Fields = z.infer<typeof frontMatterSchema>
const fieldNames = Object.keys(frontMatterSchema.shape)

/** Claude Code's model aliases, as the nearest of our choices. */
const claudeModels: Record<string, 'main' | 'light'> = { inherit: 'main', sonnet: 'main', opus: 'main', haiku: 'light' }

/** Where a profile field is written in a file. */
const fileField: Record<string, string> = { system_prompt: 'body', result_contract: 'result' }

/**
 * Reads one agent profile file (product.md §2): YAML front matter (name, description, tools,
 * model, max_steps, budgets, result, can_delegate, read_only, isolation) and the Markdown body as the
 * system prompt. Claude Code's files (`source: 'claude'`) have their tool names mapped, their
 * unknown tools ignored with a warning, and `inherit` read as the main model.
 */
export function readProfileFile(text: string, source: ProfileSource): ProfileFile {
  const errors: ProfileProblem[] = []
  const warnings: string[] = []
  const frontMatter = parseFrontMatter(text)
  if (!frontMatter.ok) return { errors: [{ field: 'front matter', message: frontMatter.message }], warnings }

  const parsed = frontMatterSchema.safeParse(frontMatter.data)
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ field: String(issue.path[0] ?? 'front matter'), message: issue.message }))
    return { errors, warnings }
  }
  const fields = parsed.data
  if (source === 'arbor') {
    const unknownFields = Object.keys(frontMatter.data).filter((key) => !fieldNames.includes(key))
    if (unknownFields.length > 0) warnings.push(`unknown field ${quoted(unknownFields)} ignored; the fields are ${fieldNames.join(', ')}`)
  }
  if (frontMatter.body === '') errors.push({ field: 'body', message: 'the system prompt (the Markdown after the front matter) is empty' })

  const mcp = mcpServersOf(fields, errors)
  let tools = [...defaultTools(fields), ...mcp.names.map((name) => `${mcpPrefix}${name}`)]
  if (fields.tools !== undefined && fields.tools !== null) {
    const mapped = mapToolNames(fields.tools)
    // Claude Code's agents may name MCP tools of the session's servers; here only the profile's own servers count.
    const foreignMcp = (tool: string) => source === 'claude' && isMcpName(tool) && !mcp.names.includes(mcpServerOf(tool) ?? '')
    mapped.unknown.push(...mapped.tools.filter(foreignMcp))
    mapped.tools = mapped.tools.filter((tool) => !foreignMcp(tool))
    tools = mapped.tools
    if (mapped.unknown.length > 0 && source === 'claude') {
      warnings.push(`tool ${quoted(mapped.unknown)} has no Arbor equivalent and is ignored`)
    } else if (mapped.unknown.length > 0) {
      errors.push({ field: 'tools', message: `unknown tool ${quoted(mapped.unknown)}; known tools: ${knownTools.join(', ')}` })
    }
  }

  const model = modelChoice(fields, source, warnings)
  const base = fields.result === 'explore' ? builtinProfiles.explore! : builtinProfiles.worker!
  const profile: Profile = {
    name: fields.name,
    description: fields.description,
    system_prompt: frontMatter.body,
    tools,
    max_steps: fields.max_steps ?? base.max_steps,
    context_token_budget: fields.context_token_budget === undefined ? base.context_token_budget : fields.context_token_budget,
    total_token_budget: fields.total_token_budget === undefined ? base.total_token_budget : fields.total_token_budget,
    model,
    result_contract: fields.result ?? 'text',
    can_delegate: fields.can_delegate ?? false,
    ...(fields.read_only === undefined ? {} : { read_only: fields.read_only }),
    ...(fields.isolation === undefined ? {} : { isolation: fields.isolation }),
    ...(mcp.names.length > 0 ? { mcp_servers: mcp.names } : {}),
    ...(fields.mcpTrusted ? { mcp_trusted: fields.mcpTrusted } : {}),
  }
  for (const problem of profileProblems(profile)) {
    const field = fileField[problem.field] ?? problem.field
    // A field reported above (the empty body) is not reported twice.
    if (!errors.some((known) => known.field === field)) errors.push({ field, message: problem.message })
  }
  if (errors.length > 0) return { errors, warnings }
  return { profile: validateProfile(profile), errors, warnings, ...(Object.keys(mcp.inline).length > 0 ? { mcpInline: mcp.inline } : {}) }
}

/**
 * The servers a front matter's `mcpServers` names (Claude Code's agent-file field): a name refers
 * to the project's `.mcp.json` (checked by the loader), `{name: {...}}` defines the server inline.
 */
function mcpServersOf(fields: Fields, errors: ProfileProblem[]): { names: string[]; inline: Record<string, McpServerSpec> } {
  const names: string[] = []
  const inline: Record<string, McpServerSpec> = {}
  const entries = fields.mcpServers === undefined ? [] : Array.isArray(fields.mcpServers) ? fields.mcpServers : [fields.mcpServers]
  for (const entry of entries) {
    const defined = typeof entry === 'string' ? { [entry]: undefined } : entry
    for (const [name, raw] of Object.entries(defined)) {
      if (raw !== undefined) {
        const read = readServer(name, raw, 'profile', process.env)
        if ('problem' in read) {
          errors.push({ field: read.problem.field, message: read.problem.message })
          continue
        }
        inline[name] = read.spec
      }
      if (!names.includes(name)) names.push(name)
    }
  }
  return { names, inline }
}

/** Without a `tools` field: read-only tools for a read-only profile, otherwise all (task only if it may delegate). */
function defaultTools(fields: Fields): string[] {
  if (fields.read_only === true || fields.result === 'explore') return [...readOnlyTools]
  return knownTools.filter((tool) => tool !== 'task' || fields.can_delegate === true)
}

function modelChoice(fields: Fields, source: ProfileSource, warnings: string[]): string {
  const model = fields.model ?? undefined
  if (model === undefined) return fields.result === 'explore' ? 'light' : 'main'
  if (model === 'inherit') return 'main'
  const alias = claudeModels[model]
  if (source === 'claude' && alias !== undefined) {
    warnings.push(`model "${model}" is read as the ${alias} model`)
    return alias
  }
  return model
}

const quoted = (names: string[]): string => names.map((name) => `"${name}"`).join(', ')
