import type { ToAgent } from '../protocol/messages'
import type { AgentStatus, EventData, TerminalReason } from '../trace/events'
import { isBackground, isLive, subtreePostOrder, wrapUpSteps, type AgentRuntime, type Ending, type JobRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/** What AgentMessages needs of the supervisor: its agents, and how it talks to, stops and ends them. */
export interface AgentMessagesOptions {
  trace: TraceEmitter
  agents: Map<string, AgentRuntime>
  newId(prefix: string): string
  now(): Date
  send(agent: AgentRuntime, message: ToAgent): void
  stop(agent: AgentRuntime, status: AgentStatus, reason: TerminalReason, summary?: string): void
  finish(agent: AgentRuntime, ending: Ending, parentResult?: { ok: false; error: string }): void
}

/**
 * What goes into a running agent's conversation from outside it, at its step boundaries: the
 * user's messages (steers) and requests to wrap up, and Arbor's deliveries of its children's
 * envelopes. The agent's loop writes each into its history and reports it as a `message` event;
 * here each is matched to what was sent (`admit`), so an agent cannot pass its own words off as
 * the user's or Arbor's, and a wrap-up's steps are counted from when the agent took it in.
 */
export class AgentMessages {
  constructor(private readonly options: AgentMessagesOptions) {}

  /**
   * Sends the user's message to a running agent. It is delivered at the agent's next step
   * boundary (before its next model call; a model call or tool call is never cut short), as a
   * user message marked as the user's, and recorded as its `message` event with `by: user`.
   * Resolves once delivered; rejects when the agent ends first, or is not running now.
   */
  steer(agentId: string, text: string): Promise<{ steer_id: string; sent_at: string; delivered_at: string }> {
    const agent = this.options.agents.get(agentId)
    if (!agent) return Promise.reject(new SteerRefused('not_found', `no agent ${agentId}`))
    if (agent.ended || agent.stopping || !agent.process || !isLive(agent)) {
      return Promise.reject(
        new SteerRefused(
          'conflict',
          `agent ${agent.label} is ${agent.stopping ? 'stopping' : agent.status}: only a running agent takes a message`,
        ),
      )
    }
    const steerId = this.options.newId('steer')
    const sentAt = this.options.now().toISOString()
    return new Promise((resolve, reject) => {
      agent.steers.set(steerId, {
        delivered: (at) => resolve({ steer_id: steerId, sent_at: sentAt, delivered_at: at }),
        undelivered: (reason) => reject(new SteerRefused('conflict', `the message to ${agent.label} was not delivered: ${reason}`)),
      })
      this.options.send(agent, { type: 'steer', steer_id: steerId, text: agent.job.redactor.redact(text), sent_at: sentAt })
    })
  }

  /**
   * Asks an agent and its descendants to wrap up (Supervisor.wrapUp says how). Throws StopRefused
   * for an unknown agent, or one that ended or is being stopped.
   */
  wrapUp(agentId: string): WrapUpResult {
    const target = this.options.agents.get(agentId)
    if (!target) throw new StopRefused('not_found', `no agent ${agentId}`)
    if (target.ended) throw new StopRefused('conflict', `agent ${target.label} has ended (${target.status}): there is nothing to wrap up`)
    if (target.stopping) throw new StopRefused('conflict', `agent ${target.label} is being stopped (${target.stopping.reason})`)
    if (target.wrapUp) {
      const asked = target.wrapUp.requestedAt
      return { wrapping_up: [], cancelled: [], already: true, note: `agent ${target.label} is already wrapping up (asked at ${asked})` }
    }
    const requestedAt = this.options.now().toISOString()
    const result: WrapUpResult = { wrapping_up: [], cancelled: [], already: false }
    const subtree = subtreePostOrder(target).filter((agent) => !agent.ended && !agent.stopping && !agent.wrapUp)
    // A spawn that never started its work (a ghost, or a process still waiting to start) has
    // nothing to report: cancelled, once every running agent is marked, so none starts instead.
    const unstarted = (agent: AgentRuntime): boolean => agent.status === 'held' || agent.status === 'queued' || !agent.process
    for (const agent of subtree.filter((each) => !unstarted(each))) {
      agent.wrapUp = { id: this.options.newId('wrapup'), target: target.id, requestedAt, deliveredAtStep: null }
      this.options.trace.agent(agent, 'agent.wrap_up', { phase: 'requested', by: 'user', target: target.id, requested_at: requestedAt })
      this.options.send(agent, { type: 'wrap_up', wrap_up_id: agent.wrapUp.id, requested_at: requestedAt, steps_allowed: wrapUpSteps })
      result.wrapping_up.push(agent.id)
    }
    for (const agent of subtree.filter(unstarted)) {
      if (agent.parent) agent.parent.waiting = agent.parent.waiting.filter((waiting) => waiting !== agent)
      const reason = 'spawn cancelled: its parent is wrapping up'
      this.options.finish(
        agent,
        { status: 'cancelled', terminalReason: 'cancelled', result: null, summary: reason },
        { ok: false, error: reason },
      )
      result.cancelled.push(agent.id)
    }
    return result
  }

  /** The job's agents told to wrap up that have not ended yet. */
  wrappingUp(job: JobRuntime | undefined): string[] {
    return job ? [...job.agents.values()].filter((agent) => agent.wrapUp && !agent.ended).map((agent) => agent.id) : []
  }

  /**
   * A `message` event the agent reported: true when it is to be recorded as it is (the caller
   * records it), false when it was handled here: a wrap-up taken in (recorded with its
   * `agent.wrap_up`), or a message that claims to be the user's or Arbor's and is not (recorded as
   * the agent's own, with an error). A steer it reports is marked delivered.
   */
  admit(agent: AgentRuntime, data: EventData<'message'>, ts: string): boolean {
    if (typeof data.wrap_up_id === 'string') {
      this.onWrapUpDelivered(agent, data, ts)
      return false
    }
    if (data.by === 'arbor' && !this.isArborMessage(agent, data.background_results)) {
      const { by: _by, background_results: _results, delivered_at: _delivered, ...plain } = data
      this.options.trace.agent(agent, 'error', {
        message: 'the agent marked a message as Arbor’s that carries results of no ended background child of its own; recorded as its own',
      })
      this.options.trace.agent(agent, 'message', plain, ts)
      return false
    }
    if (data.by === 'user') {
      // Only a message the user sent this agent may say it is the user's.
      const steer = typeof data.steer_id === 'string' ? agent.steers.get(data.steer_id) : undefined
      if (!steer) {
        const { by: _by, steer_id: _id, sent_at: _sent, delivered_at: _delivered, ...plain } = data
        this.options.trace.agent(agent, 'error', {
          message: 'the agent marked a message as the user’s that the user did not send; recorded as its own',
        })
        this.options.trace.agent(agent, 'message', plain, ts)
        return false
      }
      agent.steers.delete(data.steer_id as string)
      steer.delivered(typeof data.delivered_at === 'string' ? data.delivered_at : ts)
    }
    return true
  }

  /** The agent ended: the user's messages it never took in are refused, not lost silently. */
  agentEnded(agent: AgentRuntime, reason: TerminalReason): void {
    for (const steer of agent.steers.values()) steer.undelivered(`the agent ended (${reason}) before its next step`)
    agent.steers.clear()
  }

  /**
   * A message the agent marks as Arbor's is one of two: a refused finish (no results), or the
   * delivery of envelopes, each of an ended background child of its own.
   */
  private isArborMessage(agent: AgentRuntime, results: string[] | undefined): boolean {
    if (results === undefined) return true
    return results.every((id) => {
      const child = this.options.agents.get(id)
      return child !== undefined && child.parent === agent && (isBackground(child) || child.reportsToParent) && child.ended
    })
  }

  /**
   * The agent took the user's request to wrap up in, before its next model call: its steps to
   * finish count from here. Only the request the supervisor sent may say it is the user's.
   */
  private onWrapUpDelivered(agent: AgentRuntime, data: EventData<'message'>, ts: string): void {
    const wrapUp = agent.wrapUp
    if (!wrapUp || wrapUp.id !== data.wrap_up_id || wrapUp.deliveredAtStep !== null) {
      const { by: _by, wrap_up_id: _id, sent_at: _sent, delivered_at: _delivered, ...plain } = data
      this.options.trace.agent(agent, 'error', {
        message: 'the agent marked a message as the user’s wrap-up request that the user did not send; recorded as its own',
      })
      this.options.trace.agent(agent, 'message', plain, ts)
      return
    }
    wrapUp.deliveredAtStep = agent.steps
    const deliveredAt = typeof data.delivered_at === 'string' ? data.delivered_at : ts
    this.options.trace.agent(agent, 'message', data, ts)
    this.options.trace.agent(agent, 'agent.wrap_up', {
      phase: 'delivered',
      by: 'user',
      target: wrapUp.target,
      requested_at: wrapUp.requestedAt,
      delivered_at: deliveredAt,
      steps_allowed: wrapUpSteps,
    })
  }

  /**
   * True when a wrapping-up agent asks for a model call past its allowance: it did not finish in
   * time, so it ends `killed` (with what is left of its subtree) with its last output, as a kill would.
   */
  wrapUpSpent(agent: AgentRuntime): boolean {
    const delivered = agent.wrapUp?.deliveredAtStep
    if (delivered === null || delivered === undefined || agent.steps < delivered + wrapUpSteps) return false
    const summary = `${agent.profile.name} agent did not finish within the ${wrapUpSteps} steps it had to wrap up.`
    for (const each of subtreePostOrder(agent)) {
      const partial = each.lastText ? ` Last output: ${each.lastText.slice(0, 300)}` : ''
      this.options.stop(each, 'killed', 'killed', each === agent ? `${summary}${partial}` : undefined)
    }
    return true
  }
}

/** A message the user sent could not go to the agent: unknown agent (`not_found`), or one not running (`conflict`). */
export class SteerRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
    this.name = 'SteerRefused'
  }
}

/** What a wrap-up did: the agents told to wrap up, the spawns that never started and were cancelled. */
export interface WrapUpResult {
  wrapping_up: string[]
  cancelled: string[]
  /** The agent was already wrapping up: nothing changed (`note` says since when). */
  already: boolean
  note?: string
}

/** An agent cannot be stopped as asked: unknown (`not_found`), or ended or being stopped (`conflict`). */
export class StopRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
    this.name = 'StopRefused'
  }
}
