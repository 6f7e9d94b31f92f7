import { packetMessages, toSupervisorSchema, type AgentInit, type ToAgent, type ToSupervisor } from '../protocol/messages'
import type { ProcessHost } from './process-host'
import type { AgentRuntime } from './runtime'
import { StartSlots } from './start-slots'
import type { TraceEmitter } from './trace-emitter'

/** What an agent process says once it runs, parsed and redacted; `ready`, `process` and `heartbeat` are handled here. */
export type AgentMessage = Exclude<ToSupervisor, { type: 'ready' | 'process' | 'heartbeat' }>

export interface AgentProcessEvents {
  /** A message from a live agent's process (none after the agent ended). */
  message(agent: AgentRuntime, message: AgentMessage): void
  /** The process is gone, its groups ended; the supervisor decides what that means for the agent. */
  exited(agent: AgentRuntime, code: number | null, signal: string | null): void
  /** The process could not be started, or never said ready (an error is traced): the agent fails. */
  failed(agent: AgentRuntime, why: 'could_not_start' | 'not_ready'): void
  /** The process said something valid (a heartbeat, or any message): it is alive. */
  alive(agent: AgentRuntime): void
}

export interface AgentProcessesOptions {
  host: ProcessHost
  trace: TraceEmitter
  events: AgentProcessEvents
  /** An agent process that has not said `ready` by then fails, counted from its start. */
  readyTimeoutMs: number
  /** Time between asking an agent to end and forcing it. */
  killGraceMs: number
  /** Agent processes starting at once (spawned, not yet ready); the rest wait. */
  maxStartingProcesses: number
}

/**
 * The agents' processes: started through the ProcessHost a few at a time, handed their `start`
 * once ready, asked to end and forced after the grace time, and the process groups their commands
 * started ended with them. Every message from an agent process comes through here: parsed with
 * zod, one by one, and redacted of the job's known keys before anything traces it or sends it
 * to a model. A hostile process can get an `error` event recorded, nothing else.
 */
export class AgentProcesses {
  private readonly starts: StartSlots

  constructor(private readonly options: AgentProcessesOptions) {
    this.starts = new StartSlots(options.maxStartingProcesses)
  }

  /** Starts the agent's process once a start slot is free; `init` is its `start` message, sent once it is ready. */
  start(agent: AgentRuntime, init: () => AgentInit): void {
    this.starts.run(agent, () => this.spawn(agent, init))
  }

  send(agent: AgentRuntime, message: ToAgent): void {
    agent.process?.send(message)
  }

  /** Asks the process to end (it reports what it had) and forces it after the grace time. */
  stop(agent: AgentRuntime): void {
    agent.process?.kill(false)
    this.forceKillAfter(agent, this.options.killGraceMs)
  }

  /** The agent said `done`: its process exits by itself; make sure it does. */
  expectExit(agent: AgentRuntime): void {
    this.forceKillAfter(agent, this.options.killGraceMs * 2)
  }

  private spawn(agent: AgentRuntime, init: () => AgentInit): void {
    // Stopped while it waited for a slot: it ended without a process.
    if (agent.ended || agent.stopping) return this.starts.release(agent)
    const { trace, events, readyTimeoutMs } = this.options
    let process
    try {
      process = this.options.host.spawn({ agentId: agent.id })
    } catch (error) {
      this.starts.release(agent)
      trace.agent(agent, 'error', { message: `could not start the agent process: ${errorText(error)}` })
      events.failed(agent, 'could_not_start')
      return
    }
    agent.process = process
    agent.readyTimer = setTimeout(() => {
      trace.agent(agent, 'error', { message: `the agent process did not say ready within ${readyTimeoutMs / 1000} s` })
      events.failed(agent, 'not_ready')
    }, readyTimeoutMs)
    agent.readyTimer.unref()
    process.onMessage((packet) => {
      for (const raw of packetMessages(packet)) this.receive(agent, raw, init)
    })
    agent.exited = new Promise((resolve) => {
      process.onExit((code, signal) => {
        this.onExit(agent)
        events.exited(agent, code, signal)
        resolve()
      })
    })
  }

  private receive(agent: AgentRuntime, raw: unknown, init: () => AgentInit): void {
    const parsed = toSupervisorSchema.safeParse(raw)
    if (!parsed.success) {
      this.options.trace.agent(agent, 'error', {
        message: `invalid message from the agent process: ${parsed.error.issues[0]?.message ?? 'unknown'}`,
      })
      return
    }
    // Whatever an agent sends may quote a key it read (tool output, a task prompt, a command to
    // approve, its result): taken out here, before anything is traced or sent to a model.
    const message: ToSupervisor = agent.job.redactor.redactDeep(parsed.data)
    // Process groups are tracked to the end: a group reported after `done` must still be ended.
    if (message.type === 'process') return this.trackGroup(agent, message.pgid, message.running)
    if (agent.ended) return
    this.options.events.alive(agent)
    if (message.type === 'heartbeat') return
    if (message.type !== 'ready') return this.options.events.message(agent, message)
    if (agent.readyTimer) clearTimeout(agent.readyTimer)
    agent.readyTimer = null
    this.starts.release(agent)
    this.send(agent, { type: 'start', init: init() })
  }

  private trackGroup(agent: AgentRuntime, pgid: number, running: boolean): void {
    // Never a group this process belongs to or stands for, whatever an agent reports.
    if (pgid <= 1 || pgid === process.pid || pgid === process.ppid || pgid === agent.process?.pid) {
      if (!agent.ended)
        this.options.trace.agent(agent, 'error', { message: `the agent reported process group ${pgid} as its own; ignored` })
      return
    }
    if (running && agent.process) agent.groups.add(pgid)
    else if (running) killGroup(pgid)
    else agent.groups.delete(pgid)
  }

  private onExit(agent: AgentRuntime): void {
    if (agent.forceKillTimer) clearTimeout(agent.forceKillTimer)
    if (agent.readyTimer) clearTimeout(agent.readyTimer)
    this.starts.release(agent)
    agent.process = null
    // However the agent ended (even SIGKILLed), nothing it started outlives it.
    for (const group of agent.groups) killGroup(group)
    agent.groups.clear()
  }

  private forceKillAfter(agent: AgentRuntime, afterMs: number): void {
    if (!agent.process || agent.forceKillTimer) return
    const process = agent.process
    agent.forceKillTimer = setTimeout(() => process.kill(true), afterMs)
    agent.forceKillTimer.unref()
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Ends a process group an agent started; it may be gone already. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}
