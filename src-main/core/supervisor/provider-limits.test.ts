import { describe, expect, it } from 'vitest'
import type { AttemptResult, AttemptTicket } from '../providers/types'
import { ProviderLimits, WakeSource, type CooldownCause } from './provider-limits'

/**
 * The endpoint state the supervisor's agents share (provider-limits.ts), on the real clock with
 * short cooldowns: a limited answer holds everyone's next attempt, one probe goes after it, the
 * cap holds attempts beyond it, and an abort ends a hold at once, leaving no timer behind.
 */

const limited = (delayMs: number): AttemptResult => ({
  ok: false,
  code: 'rate_limit',
  status: 429,
  detail: 'rate_limit_exceeded: slow down',
  delay_ms: delayMs,
})

function caller(limits: ProviderLimits, key = 'openai http://127.0.0.1:1/v1 0123456789abcdef') {
  const held: Array<{ until: number; cause: CooldownCause }> = []
  const slotWaits: boolean[] = []
  const wake = new WakeSource()
  let exempt = false
  const gate = limits.for(key).gate(
    { held: (until, cause) => held.push({ until, cause }), slotWait: (waiting) => slotWaits.push(waiting) },
    () => {
      const value = exempt
      exempt = false
      return value
    },
    wake,
  )
  return {
    held,
    slotWaits,
    acquire: (signal?: AbortSignal) => gate.acquire(signal),
    retryNow() {
      exempt = true
      wake.wake()
    },
  }
}

/** Whether the promise has settled after the event loop has run what was ready. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true),
  )
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length

describe('ProviderLimits', () => {
  it("holds everyone's next attempt until a limited answer's cooldown ends, saying so with its end and message", async () => {
    const limits = new ProviderLimits({ maxConcurrentCalls: () => 8 })
    const [a, b] = [caller(limits), caller(limits)]
    const first = await a.acquire()
    first.settle(limited(300))
    first.release()
    const started = Date.now()
    const next = b.acquire()
    expect(await settled(next)).toBe(false)
    ;(await next).release()
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(b.held[0]).toMatchObject({ cause: { message: 'openai: HTTP 429 rate_limit_exceeded: slow down', status: 429 } })
    expect(b.held[0]!.until).toBeGreaterThanOrEqual(started + 250)
  })

  it('after the cooldown one probe goes; the others wait for its answer and all go once it is through', async () => {
    const limits = new ProviderLimits({ maxConcurrentCalls: () => 8 })
    const [a, b, c] = [caller(limits), caller(limits), caller(limits)]
    const first = await a.acquire()
    first.settle(limited(50))
    first.release()
    const probe = await b.acquire()
    const waiting = c.acquire()
    expect(await settled(waiting)).toBe(false)
    probe.settle({ ok: true })
    ;(await waiting).release()
    probe.release()
  })

  it('a probe limited again starts a new cooldown for the others', async () => {
    const limits = new ProviderLimits({ maxConcurrentCalls: () => 8 })
    const [a, b] = [caller(limits), caller(limits)]
    const probe = await a.acquire()
    probe.settle(limited(0))
    probe.release()
    const again = await a.acquire()
    const waiting = b.acquire()
    again.settle(limited(200))
    again.release()
    const started = Date.now()
    ;(await waiting).release()
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
  })

  it('holds attempts beyond the cap until one is released, reading the cap at each attempt', async () => {
    let cap = 2
    const limits = new ProviderLimits({ maxConcurrentCalls: () => cap })
    const agents = [caller(limits), caller(limits), caller(limits)]
    const tickets: AttemptTicket[] = [await agents[0]!.acquire(), await agents[1]!.acquire()]
    const third = agents[2]!.acquire()
    expect(await settled(third)).toBe(false)
    expect(limits.for('openai http://127.0.0.1:1/v1 0123456789abcdef').inFlight).toBe(2)
    tickets[0]!.release()
    tickets[0]!.release() // twice counts once
    tickets.push(await third)
    // The slot wait is told (for a node to show), once each way; it is not a rate-limit hold.
    expect(agents[2]!.slotWaits).toEqual([true, false])
    expect(agents[2]!.held).toEqual([])
    expect(limits.for('openai http://127.0.0.1:1/v1 0123456789abcdef').inFlight).toBe(2)
    cap = 3
    tickets.push(await agents[0]!.acquire())
    for (const ticket of tickets) ticket.release()
    // Cooldowns and caps are per endpoint: another key is not held.
    expect(await settled(caller(limits, 'openai http://127.0.0.1:1/v1 fedcba9876543210').acquire())).toBe(true)
  })

  it('"Retry now" lets a held attempt go at once, whatever the cooldown', async () => {
    const limits = new ProviderLimits({ maxConcurrentCalls: () => 8 })
    const [a, b] = [caller(limits), caller(limits)]
    const first = await a.acquire()
    first.settle(limited(60_000))
    first.release()
    const held = b.acquire()
    expect(await settled(held)).toBe(false)
    b.retryNow()
    ;(await held).release()
  })

  it('an abort ends a hold at once and leaves no timer behind', async () => {
    const limits = new ProviderLimits({ maxConcurrentCalls: () => 8 })
    const [a, b] = [caller(limits), caller(limits)]
    const first = await a.acquire()
    first.settle(limited(60_000))
    first.release()
    const before = timers()
    const abort = new AbortController()
    const held = b.acquire(abort.signal)
    expect(await settled(held)).toBe(false)
    expect(timers()).toBe(before + 1)
    abort.abort('killed')
    await expect(held).rejects.toMatchObject({ code: 'aborted' })
    expect(timers()).toBe(before)
  })
})
