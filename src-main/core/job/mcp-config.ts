import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/**
 * MCP server configuration: the project's `.mcp.json` (Claude Code's format) and the inline
 * servers of a profile file's `mcpServers`. A stdio server is `{command, args, env}`, an HTTP one
 * `{type: "http", url, headers}`. `${VAR}` and `${VAR:-default}` are expanded in command, args,
 * env, url and headers from Arbor's environment, as Claude Code does; a variable that is unset
 * and has no default is an error naming the server and field.
 *
 * A server's `env` and `headers` are secrets: they stay in the supervisor (never in a trace, a
 * log, an export or the renderer); `describeServer` is what may be shown.
 */

export const mcpConfigFile = '.mcp.json'

const stdioSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string({ error: 'must be a string (the program to run)' }).min(1, 'must not be empty'),
  args: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
  env: z.record(z.string(), z.string(), { error: 'must be a mapping of names to strings' }).optional(),
})
const httpSchema = z.strictObject({
  type: z.literal('http'),
  url: z.string({ error: 'must be a string (the server’s URL)' }).min(1, 'must not be empty'),
  headers: z.record(z.string(), z.string(), { error: 'must be a mapping of names to strings' }).optional(),
})
export const mcpServerSchema = z.union([httpSchema, stdioSchema], {
  error: 'must be {command, args, env} (stdio) or {type: "http", url, headers}',
})
export type McpServerConfig = z.infer<typeof mcpServerSchema>

/** A server as configured: its settings (expanded) and where they were written. */
export interface McpServerSpec {
  name: string
  config: McpServerConfig
  /** The file it comes from, relative to the project: `.mcp.json` or a profile file. */
  source: string
  /** What may be shown: its transport and program or URL as written, before `${VAR}` expansion (a value may be a secret). */
  shown?: { transport: 'stdio' | 'http'; target: string }
}

/** One thing wrong with an MCP configuration: the file, the field (`mcpServers.srv.url`) and what. */
export interface McpConfigProblem {
  file: string
  field: string
  message: string
}

export const serverNamePattern = /^[A-Za-z0-9_-]+$/

const fileSchema = z.object({
  mcpServers: z.record(z.string(), z.unknown(), {
    error: (issue) =>
      issue.input === undefined
        ? 'is required: the file is {"mcpServers": {"<name>": {...}}}'
        : 'must be a mapping of server names to servers',
  }),
})

/**
 * The servers of `<project>/.mcp.json`: none when there is no file; a problem for each broken
 * part (unreadable file, bad JSON, bad server, unset variable), the other servers still load.
 */
export function readMcpJson(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { servers: Record<string, McpServerSpec>; problems: McpConfigProblem[] } {
  let text: string
  try {
    text = readFileSync(join(projectDir, mcpConfigFile), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { servers: {}, problems: [] }
    return { servers: {}, problems: [{ file: mcpConfigFile, field: 'file', message: `cannot be read: ${(error as Error).message}` }] }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return { servers: {}, problems: [{ file: mcpConfigFile, field: 'file', message: `is not valid JSON: ${(error as Error).message}` }] }
  }
  const parsed = fileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.length > 0 ? issue.path.join('.') : 'mcpServers'
    const message = issue.path.length === 0 ? 'must be an object with a "mcpServers" mapping' : issue.message
    return { servers: {}, problems: [{ file: mcpConfigFile, field, message }] }
  }
  const servers: Record<string, McpServerSpec> = {}
  const problems: McpConfigProblem[] = []
  for (const [name, raw] of Object.entries(parsed.data.mcpServers)) {
    const read = readServer(name, raw, mcpConfigFile, env)
    if ('problem' in read) problems.push(read.problem)
    else servers[name] = read.spec
  }
  return { servers, problems }
}

/** One server's entry (from `.mcp.json` or a profile's inline `mcpServers`), checked and expanded. */
export function readServer(
  name: string,
  raw: unknown,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  prefix = 'mcpServers',
): { spec: McpServerSpec } | { problem: McpConfigProblem } {
  const at = `${prefix}.${name}`
  if (!serverNamePattern.test(name)) {
    return { problem: { file, field: at, message: `"${name}" is not a valid server name (letters, digits, "-", "_")` } }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problem: { file, field: at, message: 'must be {command, args, env} (stdio) or {type: "http", url, headers}' } }
  }
  // Read by its type, so a problem names the field at fault.
  const type = (raw as { type?: unknown }).type
  if (type !== undefined && type !== 'stdio' && type !== 'http') {
    return { problem: { file, field: `${at}.type`, message: 'must be "stdio" or "http" (Arbor has no SSE or WebSocket transport)' } }
  }
  const parsed = (type === 'http' ? httpSchema : stdioSchema).safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.length > 0 ? `${at}.${issue.path.join('.')}` : at
    return { problem: { file, field, message: issue.message } }
  }
  try {
    return { spec: { name, config: expandServer(parsed.data, env, at), source: file, shown: describeServer(parsed.data) } }
  } catch (error) {
    if (error instanceof ExpansionError) return { problem: { file, field: error.field, message: error.message } }
    throw error
  }
}

class ExpansionError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** `${VAR}` and `${VAR:-default}` in a string, from `env`. */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, field: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, variable: string, fallback: string | undefined) => {
    const value = env[variable]
    if (value !== undefined && value !== '') return value
    if (fallback !== undefined) return fallback
    throw new ExpansionError(field, `uses \${${variable}}, which is not set (give a default with \${${variable}:-default})`)
  })
}

function expandServer(config: McpServerConfig, env: NodeJS.ProcessEnv, at: string): McpServerConfig {
  const expandRecord = (record: Record<string, string> | undefined, field: string) =>
    record === undefined
      ? undefined
      : Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandVariables(value, env, `${at}.${field}.${key}`)]))
  if (config.type === 'http') {
    const headers = expandRecord(config.headers, 'headers')
    return { type: 'http', url: expandVariables(config.url, env, `${at}.url`), ...(headers ? { headers } : {}) }
  }
  const envVars = expandRecord(config.env, 'env')
  return {
    command: expandVariables(config.command, env, `${at}.command`),
    ...(config.args ? { args: config.args.map((arg, index) => expandVariables(arg, env, `${at}.args.${index}`)) } : {}),
    ...(envVars ? { env: envVars } : {}),
  }
}

/** What may be shown of a server (Settings, errors): its kind and program or URL, never env values or headers. */
export function describeServer(config: McpServerConfig): { transport: 'stdio' | 'http'; target: string } {
  if (config.type === 'http') return { transport: 'http', target: safeUrl(config.url) }
  return { transport: 'stdio', target: [config.command, ...(config.args ?? [])].join(' ') }
}

/** A URL without its user info and query (either may carry a token). */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return '(invalid URL)'
  }
}
