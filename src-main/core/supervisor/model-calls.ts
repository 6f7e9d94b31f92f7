import { ProviderError, isWaitable } from '../providers/errors'
import type { Provider, ProviderEvent, ProviderMessage, ResponseIdentity, ToolDefinition } from '../providers/types'
import type { ToAgent } from '../protocol/messages'
import type { HistoryDelta } from '../protocol/model-history'
import { emptyUsage, type Usage } from '../trace/usage'
import type { ProviderLimits } from './provider-limits'
import { CallWait, type RateLimitWaitRecorder } from './rate-limit-wait'
import type { AgentRuntime } from './runtime'

/** What one model call ended with, for the supervisor to count and record. */
export interface CallRecord {
  provider: string
  model: string
  usage: Usage
  cost_usd: number | null
  duration_ms: number
  finish_reason: string | null
  /** The provider's id of its response and the model that answered, when it said. */
  response_id?: string
  response_model?: string
  /** Set when the supervisor cut the call short (budget, kill): `usage` is what was known then. */
  aborted?: string
}

export interface ModelCallsOptions {
  /** The agent's provider, made once per agent from its job's connection (the key stays here). */
  providerFor(agent: AgentRuntime): Provider
  send(agent: AgentRuntime, message: ToAgent): void
  /** Why a new call may not start (the job's budget is spent, the agent is ending); null when it may. */
  refusal(agent: AgentRuntime): string | null
  /** Every call that ended, finished or cut short: the one place usage is counted. */
  onCallEnd(agent: AgentRuntime, record: CallRecord): void
  /** Removes known keys from an error text (a provider may echo what it was sent). */
  redact(agent: AgentRuntime, text: string): string
  now(): number
  /** What the supervisor's agents share of each endpoint: its rate limit and the cap on concurrent calls. */
  limits: ProviderLimits
  /** Where a call's rate-limit waits are recorded (the supervisor's AgentWaits). */
  waits: RateLimitWaitRecorder
  /** How long one call may wait through rate limits before it fails (the job's rate_limit_wait_minutes). */
  rateLimitWaitMs(agent: AgentRuntime): number
  /**
   * A call of the agent waits for a free slot under the cap on concurrent calls (true), or got
   * one (false). Not a rate-limit wait and not in the trace; the hook for a node's "waiting for a
   * model slot", which nothing shows yet.
   */
  slotWait?(agent: AgentRuntime, waiting: boolean): void
}

/**
 * The model calls of every agent process, made here in the supervisor: an agent sends
 * `model_call` with what changed of its history and tools, and gets the provider's events back
 * as they stream. So no agent holds a provider key, each call is checked against the job's caps
 * before it starts, a cap that trips can abort the calls in flight, and usage is counted once,
 * where it is paid. A call the API rate-limits waits and is made again (rate-limit-wait.ts); the
 * agent process just goes on waiting for its answer.
 */
export class ModelCalls {
  /** The calls that may wait through a rate limit now, by agent: "Retry now" reaches them. */
  private readonly callWaits = new Map<AgentRuntime, Set<CallWait>>()

  constructor(private readonly options: ModelCallsOptions) {}

  /** The user's "Retry now": each of the agent's calls waiting for a rate limit tries again at once. False when none waits. */
  retryNow(agent: AgentRuntime): boolean {
    let any = false
    for (const wait of this.callWaits.get(agent) ?? []) any = wait.retryNow() || any
    return any
  }

  /**
   * `call` comes redacted: the supervisor takes known keys out of all an agent sends. It is
   * applied to the agent's history first, refused or not, as the agent counts it sent.
   */
  start(agent: AgentRuntime, callId: string, call: HistoryDelta): void {
    const request = agent.history.apply(call)
    if ('error' in request) return this.fail(agent, callId, new ProviderError('other', request.error))
    const { messages, tools } = request
    const refusal = this.options.refusal(agent)
    if (refusal) return this.fail(agent, callId, new ProviderError('aborted', refusal))
    if (agent.calls.has(callId)) return this.fail(agent, callId, new ProviderError('other', `model call ${callId} is already running`))
    const abort = new AbortController()
    agent.calls.set(callId, abort)
    // Answers go to the process that asked: a call cut short by a crash must not reach the new
    // process of a restarted agent, whose own first call may well have the same id.
    const asker = agent.process
    const send = (message: ToAgent): void => {
      if (agent.process === asker) this.options.send(agent, message)
    }
    void this.run(agent, callId, messages, tools, abort.signal, send).finally(() => {
      if (agent.calls.get(callId) === abort) agent.calls.delete(callId)
    })
  }

  /** The agent gave up on a call (its own abort): stop streaming it. */
  cancel(agent: AgentRuntime, callId: string): void {
    agent.calls.get(callId)?.abort('cancelled')
  }

  /** Cuts every call of `agent` short; each is recorded with what was known of its usage. */
  abortAll(agent: AgentRuntime, reason: string): void {
    for (const call of agent.calls.values()) call.abort(reason)
  }

  private async run(
    agent: AgentRuntime,
    callId: string,
    messages: ProviderMessage[],
    tools: ToolDefinition[],
    signal: AbortSignal,
    send: (message: ToAgent) => void,
  ): Promise<void> {
    // The call's duration is its last try's: the time it waited is the wait's (agent.wait).
    let started = this.options.now()
    let provider: Provider
    try {
      provider = this.options.providerFor(agent)
    } catch (error) {
      return this.fail(agent, callId, new ProviderError('other', `the model could not be set up: ${errorText(error)}`), send)
    }
    const batch = new EventBatch((events) => send({ type: 'model_event', call_id: callId, events }))
    const record = (
      fields: Pick<CallRecord, 'usage' | 'cost_usd' | 'finish_reason' | 'aborted' | 'response_id' | 'response_model'>,
    ): void =>
      this.options.onCallEnd(agent, {
        provider: provider.kind,
        model: provider.model,
        duration_ms: this.options.now() - started,
        ...fields,
      })
    const endpoint = provider.limitKey ? this.options.limits.for(provider.limitKey) : null
    const wait = new CallWait({
      agent,
      recorder: this.options.waits,
      provider: provider.kind,
      maxTotalMs: this.options.rateLimitWaitMs(agent),
      redact: (text) => this.options.redact(agent, text),
      now: this.options.now,
      slotWait: (waiting) => this.options.slotWait?.(agent, waiting),
    })
    const gate = endpoint?.gate(wait, () => wait.takeExemption(), wait.wake)
    const waits = this.callWaits.get(agent) ?? new Set<CallWait>()
    this.callWaits.set(agent, waits.add(wait))
    try {
      for (; ; started = this.options.now()) {
        let streamed = false
        try {
          for await (const event of provider.stream({ messages, tools, signal, gate })) {
            if (signal.aborted) break
            wait.end('retried')
            streamed = true
            if (event.type !== 'finish') {
              batch.push(event)
              continue
            }
            // Counted (and checked against the caps) before the agent learns the call ended.
            record({ usage: event.usage, cost_usd: event.cost_usd, finish_reason: event.finish_reason, ...responseFields(event.response) })
            batch.push(event)
            batch.flush()
            return
          }
          throw new ProviderError('aborted', 'the model call was aborted')
        } catch (error) {
          batch.flush()
          if (signal.aborted) {
            wait.end('ended')
            // The provider reports usage only when a call finishes: a call cut short is recorded with none.
            record({ usage: emptyUsage(), cost_usd: null, finish_reason: null, aborted: String(signal.reason ?? 'aborted') })
            return this.fail(
              agent,
              callId,
              new ProviderError('aborted', `the model call was stopped: ${String(signal.reason ?? 'aborted')}`),
              send,
            )
          }
          const failure = ProviderError.isInstance(error) ? error : new ProviderError('other', errorText(error))
          // Made again only while the agent has seen nothing of it.
          const until = !streamed && isWaitable(failure) ? wait.next(failure) : null
          if (until === null) {
            wait.end('ended')
            return this.fail(agent, callId, failure, send)
          }
          endpoint?.holdUntil(until, { message: failure.message, status: failure.status }, wait)
          try {
            await wait.sleepUntil(until, signal)
          } catch {
            // Aborted while waiting: the loop's next attempt finds the signal aborted and records it so.
          }
        }
      }
    } finally {
      waits.delete(wait)
      if (waits.size === 0) this.callWaits.delete(agent)
    }
  }

  private fail(
    agent: AgentRuntime,
    callId: string,
    error: ProviderError,
    send = (message: ToAgent) => this.options.send(agent, message),
  ): void {
    send({
      type: 'model_error',
      call_id: callId,
      code: error.code,
      message: this.options.redact(agent, error.message),
      status: error.status,
    })
  }
}

/**
 * Text deltas come many to a chunk: events are sent once per turn of the event loop rather than
 * one message each, and a call's last events at once.
 */
class EventBatch {
  private events: ProviderEvent[] = []
  private scheduled = false

  constructor(private readonly sendEvents: (events: ProviderEvent[]) => void) {}

  push(event: ProviderEvent): void {
    this.events.push(event)
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  flush(): void {
    this.scheduled = false
    if (this.events.length === 0) return
    const events = this.events
    this.events = []
    this.sendEvents(events)
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The response's identity as llm.call keys, leaving out what the provider did not say. */
const responseFields = (response: ResponseIdentity | undefined): Pick<CallRecord, 'response_id' | 'response_model'> => ({
  ...(response?.id ? { response_id: response.id } : {}),
  ...(response?.model ? { response_model: response.model } : {}),
})
