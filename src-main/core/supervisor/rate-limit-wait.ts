import type { ProviderError } from '../providers/errors'
import { abortedError } from '../providers/errors'
import type { WaitOutcome } from '../trace/statuses'
import type { AgentRuntime } from './runtime'
import type { WaitStart } from './waits'
import { WakeSource, type CooldownCause } from './provider-limits'

/**
 * One model call's wait through a rate limit or an overloaded API (issue 21 §2): once the SDK-level
 * retries are spent (providers/retry.ts), the agent shows `waiting: rate limited` (an `agent.wait`
 * start with what the provider said and when the next try is) and the call is made again after a
 * backoff (the API's `retry-after`, else 2 s doubling; at most a minute a wait), until the job's
 * `rate_limit_wait_minutes` have passed since the wait began; then it fails as before, the wait
 * ended `gave_up`. A call held by another agent's cooldown is shown waiting the same way. The
 * wait stays open over the tries it makes and ends `retried` when one goes through, `retry_now`
 * when the user says so, `ended` when the call is aborted or fails otherwise.
 */

type RateLimitOutcome = Exclude<WaitOutcome, 'raised'>

/** What ModelCalls needs of the supervisor's AgentWaits (waits.ts): its rate-limit waits only. */
export interface RateLimitWaitRecorder {
  start(agent: AgentRuntime, reason: 'rate_limit', fields: WaitStart): void
  end(agent: AgentRuntime, outcome: RateLimitOutcome): void
}

const firstBackoffMs = 2_000
const maxWaitMs = 60_000

export interface CallWaitContext {
  agent: AgentRuntime
  /** The call waits for a free model-call slot, or has one (the node may say "waiting for a model slot"). */
  slotWait?(waiting: boolean): void
  recorder: RateLimitWaitRecorder
  provider: string
  /** How long the call may wait in all (the job's rate_limit_wait_minutes). */
  maxTotalMs: number
  redact(text: string): string
  now(): number
}

export class CallWait {
  /** Ended by "Retry now" wakes every wait of this call. */
  readonly wake = new WakeSource()
  private waiting = false
  private since: number | null = null
  private failures = 0
  private records = 0
  private exemptNext = false

  constructor(private readonly context: CallWaitContext) {}

  get isWaiting(): boolean {
    return this.waiting
  }

  slotWait(waiting: boolean): void {
    this.context.slotWait?.(waiting)
  }

  /** The call's attempt is held by the endpoint's cooldown: shown waiting, once, with the cooldown's end. */
  held(until: number, cause: CooldownCause): void {
    if (!this.waiting) this.begin(until, cause)
  }

  /**
   * The call failed with `error` (waitable) after its SDK-level retries: when to try again, with the
   * wait recorded; null when the time to wait is used up (the wait is then ended `gave_up`).
   */
  next(error: ProviderError): number | null {
    const now = this.context.now()
    this.since ??= now
    const deadline = this.since + this.context.maxTotalMs
    if (now >= deadline) {
      this.end('gave_up')
      return null
    }
    this.failures += 1
    const backoff = error.retryAfterMs ?? firstBackoffMs * 2 ** (this.failures - 1)
    const until = Math.min(now + Math.min(Math.max(0, backoff), maxWaitMs), deadline)
    this.begin(until, { message: error.message, status: error.status })
    return until
  }

  /** Sleeps until `until` or "Retry now"; rejects when `signal` aborts. Leaves no timer behind. */
  sleepUntil(until: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (aborted: boolean) => {
        clearTimeout(timer)
        this.wake.listeners.delete(onWake)
        signal.removeEventListener('abort', onAbort)
        if (aborted) reject(abortedError(signal))
        else resolve()
      }
      const onWake = () => done(false)
      const onAbort = () => done(true)
      if (signal.aborted) return reject(abortedError(signal))
      const timer = setTimeout(() => done(false), Math.max(0, until - this.context.now()))
      this.wake.listeners.add(onWake)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** The user's "Retry now": the wait ends `retry_now` and the next attempt skips the cooldown. False when not waiting. */
  retryNow(): boolean {
    if (!this.waiting) return false
    this.end('retry_now')
    this.exemptNext = true
    this.wake.wake()
    return true
  }

  /** Whether the next attempt goes at once, whatever the cooldown (asked once per attempt). */
  takeExemption(): boolean {
    const exempt = this.exemptNext
    this.exemptNext = false
    return exempt
  }

  end(outcome: RateLimitOutcome): void {
    if (!this.waiting) return
    this.waiting = false
    this.context.recorder.end(this.context.agent, outcome)
  }

  private begin(until: number, cause: CooldownCause): void {
    this.since ??= this.context.now()
    this.waiting = true
    this.records += 1
    this.context.recorder.start(this.context.agent, 'rate_limit', {
      message: this.context.redact(cause.message),
      until: new Date(until),
      provider: this.context.provider,
      status: cause.status,
      attempt: this.records,
    })
  }
}
