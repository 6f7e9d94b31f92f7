import { describe, expect, it } from 'vitest'
import { ProviderError } from './errors'
import { defaultRetryPolicy, retryAfterMs, retryDelay, withRetries, type AttemptFailure } from './retry'
import type { ProviderEvent } from './types'

describe('retry delays', () => {
  it('doubles from one second with jitter between half and all of the step, capped at 30 s', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelay(defaultRetryPolicy, attempt, null, () => 0))).toEqual([500, 1000, 2000, 4000])
    expect([1, 2, 3].map((attempt) => retryDelay(defaultRetryPolicy, attempt, null, () => 0.999_999))).toEqual([1000, 2000, 4000])
    expect(retryDelay(defaultRetryPolicy, 12, null, () => 0.999_999)).toBe(30_000)
  })

  it('honours retry-after up to a minute', () => {
    expect(retryDelay(defaultRetryPolicy, 1, 7000, () => 0)).toBe(7000)
    expect(retryDelay(defaultRetryPolicy, 1, 3_600_000, () => 0)).toBe(60_000)
  })

  it('reads retry-after-ms, retry-after seconds and retry-after dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250)
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull()
    expect(retryAfterMs(new Headers())).toBeNull()
  })
})

describe('withRetries', () => {
  const classify = (error: unknown): AttemptFailure => ({
    code: (error as ProviderError).code,
    status: 503,
    detail: 'unavailable',
    retry_after_ms: null,
  })

  it('stops waiting with an aborted error when the signal fires during a backoff', async () => {
    const stop = new AbortController()
    const attempt = async function* (): AsyncGenerator<ProviderEvent> {
      throw new ProviderError('server', 'down')
    }
    const sleep = async () => {
      stop.abort('killed')
      throw new Error('AbortError')
    }
    const run = withRetries({ provider: 'openai', sleep, signal: stop.signal, classify, secrets: [] }, attempt)
    await expect(run.next()).rejects.toSatisfy((error) => ProviderError.isInstance(error) && error.code === 'aborted')
  })

  it('respects max_attempts from the policy', async () => {
    let calls = 0
    const attempt = async function* (): AsyncGenerator<ProviderEvent> {
      calls += 1
      throw new ProviderError('rate_limit', 'slow down')
    }
    const run = withRetries({ provider: 'anthropic', sleep: async () => {}, classify, secrets: [], policy: { max_attempts: 2 } }, attempt)
    await expect(run.next()).rejects.toThrow('anthropic: HTTP 503 unavailable (after 2 attempts)')
    expect(calls).toBe(2)
  })
})

describe('the error a failed call gives up with', () => {
  it('holds neither the key nor anything shaped like one (secrets/redact.ts)', async () => {
    const detail = 'bad key my-secret-key-123 here; Incorrect API key provided: sk-proj-********abcd.'
    const classify = (): AttemptFailure => ({ code: 'auth', status: 401, detail, retry_after_ms: null })
    const attempt = async function* (): AsyncGenerator<ProviderEvent> {
      throw new Error('unauthorized')
    }
    const run = withRetries({ provider: 'openai', sleep: async () => {}, classify, secrets: ['my-secret-key-123'] }, attempt)
    await expect(run.next()).rejects.toThrow(
      'openai: HTTP 401 bad key [redacted key] here; Incorrect API key provided: [redacted key]. (check the API key',
    )
  })
})
