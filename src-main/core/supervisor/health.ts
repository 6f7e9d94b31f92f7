import type { AgentRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

export interface AgentHealthOptions {
  trace: TraceEmitter
  /** How often each agent process is told to beat (its `start` carries it). */
  intervalMs: number
  /** No message for this long and the agent is unresponsive (30 s by default). */
  unresponsiveAfterMs: number
  now(): number
}

/**
 * Tells a slow agent from a stuck or dead one: every agent process beats while it lives (a
 * `heartbeat` every `intervalMs`, during a long tool call too), and any message counts as one.
 * An agent whose process has said nothing for `unresponsiveAfterMs` (stopped, hung in native
 * code, its machine swapping) is marked unresponsive, and responsive again at its next message.
 * Only those transitions are traced (`agent.health`), never the beats. The user decides what
 * to do with an unresponsive agent (kill it, or restart it: Supervisor.restartAgent).
 */
export class AgentHealth {
  private readonly watched = new Set<AgentRuntime>()
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly options: AgentHealthOptions) {}

  get intervalMs(): number {
    return this.options.intervalMs
  }

  /** The agent's process said something (its `ready`, a beat, any message): it is alive. */
  beat(agent: AgentRuntime): void {
    const now = this.options.now()
    const last = agent.lastBeatAt
    agent.lastBeatAt = now
    this.watch(agent)
    if (!agent.unresponsive || agent.ended) return
    agent.unresponsive = false
    this.record(agent, 'responsive', last ?? now, now)
  }

  /** Its process is gone: nothing to hear until a new one (a restart) speaks. */
  gone(agent: AgentRuntime): void {
    agent.lastBeatAt = null
    this.watched.delete(agent)
    if (this.watched.size === 0) this.stopTimer()
  }

  private watch(agent: AgentRuntime): void {
    if (this.watched.has(agent)) return
    this.watched.add(agent)
    if (this.timer) return
    const every = Math.max(20, Math.min(this.options.intervalMs, this.options.unresponsiveAfterMs / 3))
    this.timer = setInterval(() => this.check(), every)
    this.timer.unref()
  }

  private check(): void {
    const now = this.options.now()
    for (const agent of this.watched) {
      if (agent.ended) {
        this.gone(agent)
        continue
      }
      const last = agent.lastBeatAt
      if (last === null || agent.unresponsive || now - last < this.options.unresponsiveAfterMs) continue
      agent.unresponsive = true
      this.record(agent, 'unresponsive', last, now)
    }
  }

  private record(agent: AgentRuntime, state: 'unresponsive' | 'responsive', last: number, now: number): void {
    this.options.trace.agent(agent, 'agent.health', {
      state,
      last_heartbeat_at: new Date(last).toISOString(),
      silent_ms: now - last,
    })
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
