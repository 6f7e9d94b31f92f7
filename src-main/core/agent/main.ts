/**
 * The agent process entry (built to out/main/agent.js; in development and tests
 * `node --import tsx src-main/core/agent/main.ts`). It must be forked by the supervisor:
 * it sends `ready`, waits for `start`, runs the loop, sends `done` and exits 0.
 */
import { randomUUID } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { z } from 'zod'
import { toAgentSchema, type AgentInit, type AgentOutcome, type ToSupervisor } from '../protocol/messages'
import { emptyUsage } from '../trace/usage'
import { connectToSupervisor } from './channel'
import { runAgent } from './loop'
import { SupervisorLink } from './supervisor-link'
import { builtinTools } from './tools/builtin'
import { toJsonSchema } from './tools/toolset'

// An agent parses a few messages of each shape: compiling a fast parser for each (zod's JIT, about
// 30 ms for the first `start` on a loaded machine) costs more than it ever saves here.
z.config({ jitless: true })

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
  const provider = link.remoteModel(init.provider.kind, init.provider.model)
  const outcome = await runAgent({ init, provider, tools: builtinTools, link, clock, ids: () => `call_${randomUUID()}`, signal: stop.signal })
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
      usage: emptyUsage(),
      cost_usd: null,
      steps: 0,
      tool_calls: 0,
      tool_usage: {},
      model: null,
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
// While it waits for `start` (in the warm pool, for as long as it takes): the tools' JSON Schemas
// are made and the start parser runs once on an empty start, so neither the first parse nor the
// first model call pays for code run the first time. A `start` already here waits for this, as
// it would have waited for it anyway.
setImmediate(() => {
  toAgentSchema.safeParse({ type: 'start', init: {} })
  for (const tool of builtinTools) toJsonSchema(tool.parameters)
})
