import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { McpServerSpec } from '../job/mcp-config'
import type { SandboxPolicy } from '../protocol/messages'
import { detectSandbox, sandboxSettings, type DetectOptions } from '../agent/tools/sandbox'
import { providerKeyVariables } from '../secrets/redact'
import { GroupStdioTransport } from './stdio-transport'

/** One tool of a server, as the server listed it. */
export interface McpToolInfo {
  name: string
  description: string
  input_schema: Record<string, unknown>
}

/** What a call gave: the text the model reads (`is_error`: the tool said it failed), or why there is none. */
export type McpCallResult = { ok: true; output: string; is_error: boolean } | { ok: false; error: string }

/** A server's life as the user is told of it. */
export type McpPhase = 'started' | 'failed' | 'crashed' | 'stopped'

export interface McpHubOptions {
  projectDir: string
  servers: Record<string, McpServerSpec>
  /** The job's sandbox policy: stdio servers run in the OS sandbox bash uses, unless `off`. */
  sandbox: SandboxPolicy
  /** How long a tools/call (and a start) may take. */
  callTimeoutMs: number
  /** A server started, failed to start, crashed or was stopped. */
  onPhase?(server: string, phase: McpPhase, message: string): void
  /** Where the sandbox's binary is looked for (tests). */
  detect?: DetectOptions
}

interface Connection {
  client: Client
  transport: Transport
  tools: McpToolInfo[]
  /** False once it closed (crashed, or was closed). */
  open: boolean
  closing: boolean
}

/**
 * The MCP servers of one job (issue 22 §3): each is started on first need and shared by every
 * agent of the job, one client each (the official SDK's). A stdio server runs in the job's OS
 * sandbox as its own process group; an HTTP server is reached with its configured headers, which
 * never leave this module. A server that crashed is started again on the next call. `close` ends
 * them all (their process groups too).
 */
export class McpHub {
  private readonly connections = new Map<string, Promise<Connection>>()
  private closed = false

  constructor(private readonly options: McpHubOptions) {}

  /** The server's tools, starting it when it is not running; an error text when it cannot start. */
  async tools(server: string): Promise<{ ok: true; tools: McpToolInfo[] } | { ok: false; error: string }> {
    try {
      return { ok: true, tools: (await this.connection(server)).tools }
    } catch (error) {
      return { ok: false, error: errorText(error) }
    }
  }

  async call(server: string, tool: string, args: Record<string, unknown>): Promise<McpCallResult> {
    let connection: Connection
    try {
      connection = await this.connection(server)
    } catch (error) {
      return { ok: false, error: errorText(error) }
    }
    try {
      const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.options.callTimeoutMs,
      })
      return { ok: true, output: contentText(result.content), is_error: result.isError === true }
    } catch (error) {
      const transport = connection.transport
      const note = transport instanceof GroupStdioTransport ? transport.exitNote : null
      if (!connection.open || note)
        return { ok: false, error: `the MCP server "${server}" ${note ?? 'closed the connection'} during the call` }
      const message = errorText(error)
      if (/timed? ?out/i.test(message)) {
        return {
          ok: false,
          error: `the MCP server "${server}" did not answer within ${this.options.callTimeoutMs} ms; the call was abandoned`,
        }
      }
      return { ok: false, error: `the MCP server "${server}" failed the call: ${message}` }
    }
  }

  /** The process ids of the running stdio servers (tests check they are gone after the job). */
  async pids(): Promise<number[]> {
    const pids: number[] = []
    for (const pending of this.connections.values()) {
      const connection = await pending.catch(() => null)
      if (connection?.open && connection.transport instanceof GroupStdioTransport && connection.transport.pid) {
        pids.push(connection.transport.pid)
      }
    }
    return pids
  }

  /** Ends every server (each stdio server's whole process group); no server starts after. */
  async close(): Promise<void> {
    this.closed = true
    const pending = [...this.connections.entries()]
    this.connections.clear()
    await Promise.all(
      pending.map(async ([server, promise]) => {
        const connection = await promise.catch(() => null)
        if (!connection?.open) return
        connection.closing = true
        await connection.client.close().catch(() => {})
        if (connection.transport instanceof GroupStdioTransport) await connection.transport.close()
        this.options.onPhase?.(server, 'stopped', `MCP server "${server}" stopped (the job ended)`)
      }),
    )
  }

  /** Kills every stdio server's group at once, synchronously (Arbor's process is exiting). */
  killNow(): void {
    for (const transport of this.stdioTransports) transport.killNow()
  }

  private readonly stdioTransports = new Set<GroupStdioTransport>()

  private connection(server: string): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error(`the job has ended: MCP server "${server}" is not started again`))
    const existing = this.connections.get(server)
    if (existing) return existing
    const started = this.connect(server)
    this.connections.set(server, started)
    started.catch(() => {
      // A failed start is tried again on the next need.
      if (this.connections.get(server) === started) this.connections.delete(server)
    })
    return started
  }

  private async connect(server: string): Promise<Connection> {
    const spec = this.options.servers[server]
    if (!spec) throw new Error(`there is no MCP server "${server}" configured`)
    let transport: Transport
    try {
      transport = await this.transportFor(spec)
    } catch (error) {
      const message = `MCP server "${server}" could not start: ${errorText(error)}`
      this.options.onPhase?.(server, 'failed', message)
      throw new Error(message)
    }
    const client = new Client({ name: 'arbor', version: '1' })
    const connection: Connection = { client, transport, tools: [], open: true, closing: false }
    client.onclose = () => {
      connection.open = false
      if (this.connections.get(server) !== undefined) this.connections.delete(server)
      if (connection.closing || this.closed) return
      const note = transport instanceof GroupStdioTransport ? transport.exitNote : null
      if (transport instanceof GroupStdioTransport) this.stdioTransports.delete(transport)
      this.options.onPhase?.(
        server,
        'crashed',
        `MCP server "${server}" ${note ?? 'closed the connection'}; it is started again on the next call`,
      )
    }
    try {
      await client.connect(transport, { timeout: this.options.callTimeoutMs })
      const listed = await client.listTools(undefined, { timeout: this.options.callTimeoutMs })
      connection.tools = listed.tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        input_schema: tool.inputSchema as Record<string, unknown>,
      }))
    } catch (error) {
      connection.closing = true
      await client.close().catch(() => {})
      if (transport instanceof GroupStdioTransport) await transport.close()
      const note = transport instanceof GroupStdioTransport ? transport.exitNote : null
      const message = `MCP server "${server}" could not start: ${note ?? errorText(error)}`
      this.options.onPhase?.(server, 'failed', message)
      throw new Error(message)
    }
    if (this.closed) {
      connection.closing = true
      await client.close().catch(() => {})
      if (transport instanceof GroupStdioTransport) await transport.close()
      throw new Error(`the job has ended: MCP server "${server}" is not started`)
    }
    this.options.onPhase?.(server, 'started', `MCP server "${server}" started with ${connection.tools.length} tools`)
    return connection
  }

  private async transportFor(spec: McpServerSpec): Promise<Transport> {
    const config = spec.config
    if (config.type === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } })
    }
    const env: NodeJS.ProcessEnv = { ...process.env, ...config.env }
    for (const name of providerKeyVariables) if (!config.env?.[name]) delete env[name]
    const argv = [config.command, ...(config.args ?? [])]
    const cwd = this.options.projectDir
    let command = { file: config.command, args: config.args ?? [], cwd, env }
    if (this.options.sandbox.mode !== 'off') {
      const availability = await detectSandbox(this.options.detect)
      if (!availability.available) throw new Error(`stdio servers run in the OS sandbox, and none can start here: ${availability.reason}`)
      const sandbox = availability.create(sandboxSettings(this.options.sandbox, cwd, { env }))
      const wrapped = sandbox.wrap(argv, { cwd, env })
      command = { file: wrapped.file, args: wrapped.args, cwd, env }
    }
    const transport = new GroupStdioTransport(command)
    this.stdioTransports.add(transport)
    return transport
  }
}

/** A tool result's content as text: text parts as they are, other parts named. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return ''
  return content
    .map((part: { type?: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } }) => {
      if (part.type === 'text') return part.text ?? ''
      if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`
      if (part.type === 'resource_link') return `[resource link]`
      return `[${part.type ?? 'content'}${part.mimeType ? ` ${part.mimeType}` : ''}]`
    })
    .join('\n')
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
