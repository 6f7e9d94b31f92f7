/**
 * The agent process entry (built to out/main/agent.js; in development and tests
 * `node --import tsx src-main/core/agent/main.ts`). It must be forked by the supervisor:
 * it sends `ready`, waits for `start`, runs the loop, sends `done` and exits 0.
 *
 * The build also makes a startup snapshot of this module for the Node that built it
 * (out/main/agent-<version>-<platform>-<arch>.blob, see electron.vite.config.ts): forked from it,
 * the process starts with everything but `serve` loaded and warmed up, and runs `serve`.
 * `ready` is sent once the code that handles `start` is loaded either way; only what a tool call
 * alone needs (search's RE2, bash's classifier and sandbox) loads on that call.
 */
// First: it configures zod before any schema is made.
import './zod-config'
import { randomUUID } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { startupSnapshot } from 'node:v8'
import { toAgentSchema, type AgentInit, type AgentOutcome, type ToSupervisor } from '../protocol/messages'
import { connectToSupervisor } from './channel'
import { runAgent } from './loop'
import { SupervisorLink } from './supervisor-link'
import { builtinTools } from './tools/builtin'
import { createMcpTools } from './tools/mcp'
import { toJsonSchema } from './tools/toolset'

/**
 * While the process waits for `start` (in the warm pool, for as long as it takes): the tools' JSON
 * Schemas are made and the start parser runs once on an empty start, so neither the first parse
 * nor the first model call pays for code run the first time.
 */
function warmUp(): void {
  toAgentSchema.safeParse({ type: 'start', init: {} })
  for (const tool of builtinTools) toJsonSchema(tool.parameters)
}

/** How often a running agent says it is alive, unless its `start` says otherwise. */
const defaultHeartbeatMs = 5000

/** The process's life: connect, say ready, run the agent `start` gives (beating while it runs), exit. */
function serve(warm: boolean): void {
  const channel = connectToSupervisor()
  if (!channel) {
    process.stderr.write('arbor agent: this process must be started by the Arbor supervisor (fork or utilityProcess)\n')
    process.exit(2)
  }

  const clock = { now: () => Date.now() }
  const pendingSends = new Set<Promise<void>>()
  const send = (message: ToSupervisor): void => {
    const sending = channel.send(message).catch(() => undefined)
    pendingSends.add(sending)
    void sending.finally(() => pendingSends.delete(sending))
  }
  const link = new SupervisorLink(send, clock)
  const stop = new AbortController()
  // Every pending `task` call and approval listens on it: dozens at once are expected, not a leak.
  setMaxListeners(0, stop.signal)
  let started = false
  let finished = false

  async function exitAfterFlush(code: number): Promise<never> {
    await Promise.allSettled([...pendingSends])
    process.exit(code)
  }

  async function start(init: AgentInit): Promise<void> {
    // Unref'd: a beat never keeps the process alive; it stops with the process, or when it stops (SIGSTOP).
    setInterval(() => send({ type: 'heartbeat' }), init.heartbeat_ms ?? defaultHeartbeatMs).unref()
    const provider = link.remoteModel(init.provider.kind, init.provider.model)
    for (const child of init.resume?.running_children ?? []) link.background.started(child.agent_id, child.description)
    for (const child of init.resume?.ended_children ?? []) link.background.delivered(child.description, child.envelope)
    const outcome = await runAgent({
      init,
      provider,
      tools: init.mcp_tools?.length ? [...builtinTools, ...createMcpTools(init.mcp_tools)] : builtinTools,
      link,
      clock,
      ids: () => `call_${randomUUID()}`,
      signal: stop.signal,
    })
    finished = true
    link.done(outcome)
    await exitAfterFlush(0)
  }

  function crash(error: unknown): void {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    if (!finished) {
      finished = true
      link.event('error', { message: `agent process crashed: ${message}` })
      const outcome: AgentOutcome = {
        status: 'failed',
        terminal_reason: 'crashed',
        result: null,
        summary: `crashed: ${error instanceof Error ? error.message : String(error)}`,
      }
      link.done(outcome)
    }
    void exitAfterFlush(1)
  }

  process.on('uncaughtException', crash)
  process.on('unhandledRejection', crash)
  // The supervisor ends an agent with SIGTERM (then SIGKILL): stop the loop and report what it had.
  process.on('SIGTERM', () => (started ? stop.abort('killed') : process.exit(0)))
  // Ctrl-C in a terminal reaches the whole foreground group: the supervisor decides what ends.
  process.on('SIGINT', () => undefined)
  process.on('SIGHUP', () => undefined)
  // The supervisor is gone (even SIGKILLed): end now. The exit hook of run-command kills every
  // command group this agent started, so nothing it ran outlives it.
  channel.onDisconnect(() => process.exit(0))

  channel.onMessage((raw) => {
    const parsed = toAgentSchema.safeParse(raw)
    if (!parsed.success) {
      link.event('error', { message: `invalid message from the supervisor: ${parsed.error.message}` })
      return
    }
    const message = parsed.data
    if (message.type !== 'start') return link.receive(message)
    if (started) return link.event('error', { message: 'a second start message was ignored' })
    started = true
    start(message.init).catch(crash)
  })

  send({ type: 'ready' })
  // Warmed up after `ready`: a `start` already here waits for it, as it would have anyway.
  if (!warm) setImmediate(warmUp)
}

if (startupSnapshot.isBuildingSnapshot()) {
  // Nothing here may hold what differs between processes (ids, the environment, the channel):
  // the snapshot holds loaded code and warmed-up schemas only.
  warmUp()
  startupSnapshot.setDeserializeMainFunction(() => serve(true))
} else {
  serve(false)
}
