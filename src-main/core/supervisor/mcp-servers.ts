import { mcpAllowed, mcpToolName } from '../job/mcp-names'
import type { McpServerSpec } from '../job/mcp-config'
import { McpHub, type McpPhase } from '../mcp/hub'
import type { McpResult, McpToolInit, ToSupervisor } from '../protocol/messages'
import { sandboxPolicy } from './agent-init'
import type { AgentRuntime, JobRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/** A tools/call's (and a server start's) time limit: Claude Code's MCP_TOOL_TIMEOUT when set, else 60 s. */
export const defaultMcpCallTimeoutMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const fromEnv = Number(env.MCP_TOOL_TIMEOUT)
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 60_000
}

/**
 * The supervisor's MCP servers: one McpHub per job, made when the job's first agent that lists a
 * server starts, closed when the job ends (or Arbor shuts down; when its process exits, their
 * process groups are killed at once). Agents get the tools their profile allows in `start`
 * (`mcpToolsFor`) and call them with `mcp_call`. Every start failure, crash and stop is an `error`
 * event (`mcp_server`, `mcp_phase`) on the agent that needed the server, or the job.
 */
export class McpServers {
  private readonly hubs = new Map<string, McpHub>()
  private readonly onExit = (): void => {
    for (const hub of this.hubs.values()) hub.killNow()
  }

  constructor(
    private readonly trace: TraceEmitter,
    private readonly callTimeoutMs: number,
  ) {}

  /** The MCP tools `agent` may call (its profile's servers, through its allowlist), starting their servers. */
  async toolsFor(agent: AgentRuntime): Promise<McpToolInit[]> {
    const profile = agent.profile
    const names = profile.mcp_servers ?? []
    if (names.length === 0) return []
    const hub = this.hubFor(agent.job, agent)
    const trusted = profile.mcp_trusted ?? []
    const lists = await Promise.all(names.map(async (server) => ({ server, listed: await hub.tools(server) })))
    const tools: McpToolInit[] = []
    for (const { server, listed } of lists) {
      if (!listed.ok) continue
      for (const tool of listed.tools) {
        if (!mcpAllowed(profile.tools, server, tool.name)) continue
        tools.push({
          name: mcpToolName(server, tool.name),
          server,
          tool: tool.name,
          description: tool.description,
          input_schema: tool.input_schema,
          trusted: mcpAllowed(trusted, server, tool.name),
        })
      }
    }
    return tools
  }

  /** An agent's `mcp_call`: only a server its profile lists; the hub says what went wrong otherwise. */
  async call(agent: AgentRuntime, message: Extract<ToSupervisor, { type: 'mcp_call' }>): Promise<McpResult> {
    const profile = agent.profile
    if (!(profile.mcp_servers ?? []).includes(message.server) || !mcpAllowed(profile.tools, message.server, message.tool)) {
      return { ok: false, error: `${mcpToolName(message.server, message.tool)} is not allowed for this agent` }
    }
    const hub = this.hubFor(agent.job, agent)
    hub.currentAgent = agent
    return hub.call(message.server, message.tool, message.arguments)
  }

  /** The job ended: its servers are stopped, their process groups ended. */
  async endJob(job: JobRuntime): Promise<void> {
    const hub = this.hubs.get(job.id)
    if (!hub) return
    this.hubs.delete(job.id)
    if (this.hubs.size === 0) process.off('exit', this.onExit)
    await hub.close()
  }

  /** The process ids of a job's running stdio servers. */
  pids(jobId: string): Promise<number[]> {
    return this.hubs.get(jobId)?.pids() ?? Promise.resolve([])
  }

  async shutdown(): Promise<void> {
    const hubs = [...this.hubs.values()]
    this.hubs.clear()
    process.off('exit', this.onExit)
    await Promise.all(hubs.map((hub) => hub.close()))
  }

  private hubFor(job: JobRuntime, agent: AgentRuntime): JobHub {
    let hub = this.hubs.get(job.id) as JobHub | undefined
    if (!hub) {
      if (this.hubs.size === 0) process.on('exit', this.onExit)
      hub = new JobHub(job, this.callTimeoutMs, (at, server, phase, message) => this.notice(job, at, server, phase, message))
      this.hubs.set(job.id, hub)
    }
    hub.currentAgent ??= agent
    return hub
  }

  private notice(job: JobRuntime, agent: AgentRuntime | null, server: string, phase: McpPhase, message: string): void {
    // A start or a stop (at the job's end, after job.end) is worth no error; failures and crashes are.
    if (phase === 'started' || phase === 'stopped') return
    const data = { message, mcp_server: server, mcp_phase: phase }
    if (agent && !agent.ended) this.trace.agent(agent, 'error', data)
    else this.trace.job(job, 'error', data)
  }
}

/** A job's hub, which knows the agent whose need or call last reached it (the notice goes on its node). */
class JobHub extends McpHub {
  currentAgent: AgentRuntime | null = null

  constructor(
    job: JobRuntime,
    callTimeoutMs: number,
    notice: (agent: AgentRuntime | null, server: string, phase: McpPhase, message: string) => void,
  ) {
    const servers: Record<string, McpServerSpec> = job.mcpServers ?? {}
    const root = job.root
    super({
      projectDir: job.project,
      servers,
      sandbox: root
        ? sandboxPolicy(root)
        : {
            mode: job.settings.no_sandbox ? 'off' : 'sandboxed',
            network: job.settings.allow_network ?? false,
            protected_paths: job.context.protectedPaths ?? [],
          },
      callTimeoutMs,
      onPhase: (server, phase, message) => notice(this.currentAgent, server, phase, message),
    })
  }
}
