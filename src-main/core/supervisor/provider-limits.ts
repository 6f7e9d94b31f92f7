import { abortedError, isWaitable } from '../providers/errors'
import type { AttemptGate, AttemptResult, AttemptTicket } from '../providers/types'

/**
 * What the agents of one supervisor share of each API endpoint (Provider.limitKey: kind, base URL
 * and a hash of the key): its rate limit and a cap on concurrent calls. When an attempt is rate
 * limited or the API is overloaded, the endpoint cools down: nobody's next attempt goes before
 * the cooldown ends, and then one attempt probes while the others wait for what it gets (through:
 * all go; limited again: a new cooldown). So a 429 costs the endpoint one request per cooldown,
 * not one per agent. The cap counts HTTP attempts in flight, not calls: an agent sleeping off a
 * backoff holds no slot. Holding for a slot is not a rate-limit wait and is not recorded.
 */
export class ProviderLimits {
  private readonly endpoints = new Map<string, EndpointLimit>()

  constructor(private readonly options: { maxConcurrentCalls: () => number; now?: () => number }) {}

  for(limitKey: string): EndpointLimit {
    let endpoint = this.endpoints.get(limitKey)
    if (!endpoint) {
      endpoint = new EndpointLimit(limitKey.split(' ')[0] ?? '', this.options.maxConcurrentCalls, this.options.now ?? Date.now)
      this.endpoints.set(limitKey, endpoint)
    }
    return endpoint
  }
}

/** Default cap on one endpoint's concurrent model calls (Settings, `arbor run --max-model-calls`). */
export const defaultMaxModelCalls = 8

/** How one call's attempts meet the endpoint: told when it is held by a cooldown, let through at once after "Retry now". */
export interface CallGateHooks {
  /** The attempt waits for the endpoint's cooldown (until `until`, ms), set by a limited answer `message`. */
  held(until: number, cause: CooldownCause): void
  /** The attempt waits for a free slot (true), or got one after waiting (false): not a rate limit, and not recorded. */
  slotWait?(waiting: boolean): void
}

export interface CooldownCause {
  /** What the API said, e.g. `openai: HTTP 429 rate_limit_exceeded: …` (not yet redacted). */
  message: string
  status: number | null
}

export class EndpointLimit {
  private cooldownUntil = 0
  private cause: CooldownCause = { message: '', status: null }
  /** The call whose answer set the cooldown: its own backoff is no wait for another's limit. */
  private cooldownOwner: object | null = null
  /** Limited and not yet through again: the next attempt after the cooldown is a probe. */
  private tripped = false
  private probe: object | null = null
  private active = 0
  private readonly listeners = new Set<() => void>()

  constructor(
    /** `openai`, `anthropic`: the first word of what it says of a limited attempt. */
    private readonly kind: string,
    private readonly cap: () => number,
    private readonly now: () => number,
  ) {}

  /** Ms until the cooldown ends (0: none), and what caused it. */
  cooldown(): { until: number; cause: CooldownCause } | null {
    return this.cooldownUntil > this.now() ? { until: this.cooldownUntil, cause: this.cause } : null
  }

  /** Nobody's attempt goes before `until` (a call waiting out a rate limit says how long it waits); `owner`: that call. */
  holdUntil(until: number, cause: CooldownCause, owner: object | null = null): void {
    this.tripped = true
    if (until > this.cooldownUntil) {
      this.cooldownUntil = until
      this.cause = cause
      this.cooldownOwner = owner
    }
    this.changed()
  }

  /** Attempts in flight now (the cap's count). */
  get inFlight(): number {
    return this.active
  }

  /** One call's gate. `exempt()` says its next attempt skips cooldown and probe ("Retry now"); it is asked once per attempt. */
  gate(hooks: CallGateHooks, exempt: () => boolean, wake: WakeSource): AttemptGate {
    return { acquire: (signal) => this.acquire(hooks, exempt(), wake, signal) }
  }

  private async acquire(hooks: CallGateHooks, exempt: boolean, wake: WakeSource, signal?: AbortSignal): Promise<AttemptTicket> {
    let waitedForSlot = false
    for (;;) {
      if (signal?.aborted) {
        if (waitedForSlot) hooks.slotWait?.(false)
        throw abortedError(signal)
      }
      const now = this.now()
      const cooling = !exempt && this.cooldownUntil > now
      const probing = !exempt && this.tripped && this.probe !== null
      const slotFree = this.active < Math.max(1, this.cap())
      if (!cooling && !probing && slotFree) {
        if (waitedForSlot) hooks.slotWait?.(false)
        return this.admit(hooks, exempt)
      }
      if (cooling && this.cooldownOwner !== hooks) hooks.held(this.cooldownUntil, this.cause)
      if (!cooling && !probing && !waitedForSlot) {
        waitedForSlot = true
        hooks.slotWait?.(true)
      }
      const woke = await this.nextChange(cooling ? this.cooldownUntil - now : null, wake, signal).catch((error: unknown) => {
        if (waitedForSlot) hooks.slotWait?.(false)
        throw error
      })
      if (woke === 'retry_now') exempt = true
    }
  }

  private admit(owner: CallGateHooks, exempt: boolean): AttemptTicket {
    this.active += 1
    const ticket = {}
    if (this.tripped && this.probe === null && !exempt) this.probe = ticket
    let settled = false
    let released = false
    return {
      settle: (result) => {
        if (settled) return
        settled = true
        this.settle(result, owner)
        if (this.probe === ticket) this.probe = null
        this.changed()
      },
      release: () => {
        if (released) return
        released = true
        this.active -= 1
        if (this.probe === ticket) this.probe = null
        this.changed()
      },
    }
  }

  private settle(result: AttemptResult, owner: object): void {
    if (result.ok) {
      this.tripped = false
      this.cooldownUntil = 0
      return
    }
    if (!isWaitable(result)) return
    const status = result.status === null ? '' : `HTTP ${result.status} `
    this.holdUntil(this.now() + result.delay_ms, { message: `${this.kind}: ${status}${result.detail}`, status: result.status }, owner)
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener()
  }

  /** Resolves on the next change of this endpoint, after `ms` (when given), or when the call is told to retry now; rejects on abort. */
  private nextChange(ms: number | null, wake: WakeSource, signal?: AbortSignal): Promise<'changed' | 'retry_now'> {
    return new Promise((resolve, reject) => {
      const done = (how: 'changed' | 'retry_now' | 'aborted') => {
        if (timer) clearTimeout(timer)
        this.listeners.delete(onChange)
        wake.listeners.delete(onWake)
        signal?.removeEventListener('abort', onAbort)
        if (how === 'aborted') reject(abortedError(signal!))
        else resolve(how)
      }
      const onChange = () => done('changed')
      const onWake = () => done('retry_now')
      const onAbort = () => done('aborted')
      const timer = ms === null ? null : setTimeout(onChange, Math.max(0, ms))
      this.listeners.add(onChange)
      wake.listeners.add(onWake)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }
}

/** A call's "Retry now": every wait of the call listening ends at once. */
export class WakeSource {
  readonly listeners = new Set<() => void>()

  wake(): void {
    for (const listener of [...this.listeners]) listener()
  }
}
