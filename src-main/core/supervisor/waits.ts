import type { AgentStatus } from '../trace/events'
import { waitStatus, type WaitOutcome, type WaitReason } from '../trace/statuses'
import type { AgentRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

export interface WaitStart {
  /** What the provider said, or which cap was reached; redacted by the caller. */
  message: string
  /** When it tries again; null or absent: when the user acts. */
  until?: Date | null
  provider?: string
  status?: number | null
  attempt?: number
}

export interface AgentWaitsOptions {
  trace: TraceEmitter
  /** The agent started or stopped waiting: its wall clock (and its ancestors') stops meanwhile, as for a user's decision. */
  clock(agent: AgentRuntime, waiting: boolean): void
  now(): number
}

/**
 * The waits of live agents whose next model call or spawn the supervisor holds: for a provider's
 * rate limit, or for a budget to be raised. It owns `agent.wait` in the trace, the status the
 * agent shows meanwhile (`rate_limited`, `paused`) and the pause of its wall clock; whoever
 * holds the call decides when the wait ends. One wait per agent at a time.
 */
export class AgentWaits {
  constructor(private readonly options: AgentWaitsOptions) {}

  /**
   * Starts a wait, or records the next try of the one it is in (another attempt, a new
   * `until`). A wait for another reason replaces the one it is in, which ends `retried`.
   */
  start(agent: AgentRuntime, reason: WaitReason, fields: WaitStart): void {
    if (agent.ended) return
    if (agent.wait && agent.wait.reason !== reason) this.end(agent, 'retried')
    if (!agent.wait) {
      agent.wait = { reason, since: this.options.now(), before: agent.status }
      this.options.clock(agent, true)
    }
    agent.status = waitStatus(reason)
    const { until, ...rest } = fields
    this.options.trace.agent(agent, 'agent.wait', {
      phase: 'start',
      reason,
      ...rest,
      until: until ? until.toISOString() : null,
    })
  }

  /** Ends the agent's wait, if it waits; returns how long it waited (ms), or null. */
  end(agent: AgentRuntime, outcome: WaitOutcome): number | null {
    const wait = agent.wait
    if (!wait) return null
    agent.wait = null
    const waited = Math.max(0, this.options.now() - wait.since)
    if (!agent.ended) agent.status = resumedStatus(wait.before)
    this.options.clock(agent, false)
    this.options.trace.agent(agent, 'agent.wait', { phase: 'end', reason: wait.reason, outcome, waited_ms: waited })
    return waited
  }

  reasonOf(agent: AgentRuntime): WaitReason | null {
    return agent.wait?.reason ?? null
  }
}

/** A wait holds a model call or a spawn of a working agent: it goes back to work. */
const resumedStatus = (before: AgentStatus): AgentStatus => (before === 'rate_limited' || before === 'paused' ? 'running' : before)
