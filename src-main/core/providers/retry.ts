import { createRedactor } from '../secrets/redact'
import { ProviderError, abortedError, type ProviderErrorCode } from './errors'
import type { AttemptGate, AttemptTicket, ProviderEvent, Sleep } from './types'

/**
 * Retries for the HTTP providers. The SDK clients run with `maxRetries: 0`, so every attempt is
 * counted here once; this module decides: 429, 408, 5xx (Anthropic's 529 included), network
 * errors and timeouts are retried with exponential backoff and jitter, honouring `retry-after`
 * (capped); auth, bad requests, context-length errors and bad responses (a server that answers
 * an HTML page answers it again) are not. A failure after the stream has yielded anything is
 * never retried: the consumer has already seen part of the reply. A `gate` (the supervisor's
 * shared limits) is asked before each attempt and told how it went.
 */
export interface RetryPolicy {
  max_attempts: number
  base_delay_ms: number
  max_delay_ms: number
  /** A server's `retry-after` is honoured up to this. */
  max_retry_after_ms: number
}

export const defaultRetryPolicy: RetryPolicy = { max_attempts: 4, base_delay_ms: 1_000, max_delay_ms: 30_000, max_retry_after_ms: 60_000 }

/** One failed attempt, in provider-neutral terms; each adapter classifies its SDK's errors. */
export interface AttemptFailure {
  code: ProviderErrorCode
  status: number | null
  /** What the API said, e.g. `overloaded_error: Overloaded`. */
  detail: string
  retry_after_ms: number | null
  cause?: unknown
}

export interface RetryOptions {
  /** `openai` or `anthropic`: the first word of every error message. */
  provider: string
  sleep: Sleep
  signal?: AbortSignal
  policy?: Partial<RetryPolicy>
  /** In [0, 1); injected so tests get fixed delays. */
  random?: () => number
  classify: (error: unknown) => AttemptFailure
  /** Strings that must never appear in an error message (the API key); the redactor's shapes go too (secrets/redact.ts). */
  secrets: readonly string[]
  /** Asked before each attempt; told each attempt's outcome (ProviderRequest.gate). */
  gate?: AttemptGate
}

const retryable = new Set<ProviderErrorCode>(['rate_limit', 'server', 'network', 'timeout'])

/** Runs `attempt` until it streams to its end, retrying failures that happen before the first event. */
export async function* withRetries(options: RetryOptions, attempt: () => AsyncIterable<ProviderEvent>): AsyncGenerator<ProviderEvent> {
  const policy = { ...defaultRetryPolicy, ...options.policy }
  const { signal } = options
  for (let attempts = 1; ; attempts += 1) {
    if (signal?.aborted) throw abortedError(signal)
    const ticket = options.gate ? await admitted(options.gate, signal) : null
    let yielded = false
    try {
      for await (const event of attempt()) {
        if (!yielded) ticket?.settle({ ok: true })
        yielded = true
        yield event
      }
      ticket?.settle({ ok: true })
      return
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal)
      const failure = options.classify(error)
      const delay = retryDelay(policy, attempts, failure.retry_after_ms, options.random ?? Math.random)
      ticket?.settle({ ok: false, code: failure.code, status: failure.status, detail: failure.detail, delay_ms: delay })
      if (yielded || !retryable.has(failure.code) || attempts >= policy.max_attempts) {
        throw giveUp(options, failure, attempts, yielded)
      }
      // The slot is not held through the backoff.
      ticket?.release()
      try {
        await options.sleep(delay, signal)
      } catch (sleepError) {
        if (signal?.aborted) throw abortedError(signal)
        throw sleepError
      }
    } finally {
      ticket?.release()
    }
  }
}

async function admitted(gate: AttemptGate, signal: AbortSignal | undefined): Promise<AttemptTicket> {
  try {
    return await gate.acquire(signal)
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal)
    throw error
  }
}

export function retryDelay(policy: RetryPolicy, attempts: number, retryAfterMs: number | null, random: () => number): number {
  if (retryAfterMs !== null) return Math.min(Math.max(0, retryAfterMs), policy.max_retry_after_ms)
  const exponential = Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** (attempts - 1))
  return Math.round(exponential * (0.5 + random() / 2))
}

function giveUp(options: RetryOptions, failure: AttemptFailure, attempts: number, yielded: boolean): ProviderError {
  if (failure.code === 'aborted') return new ProviderError('aborted', 'the model call was aborted', { cause: failure.cause })
  const status = failure.status === null ? '' : `HTTP ${failure.status} `
  const after = attempts > 1 ? ` (after ${attempts} attempts)` : ''
  const partial = yielded ? ' (after part of the reply had streamed)' : ''
  const hint = failure.code === 'auth' ? ` (check the API key in Settings ▸ Providers or ${options.provider.toUpperCase()}_API_KEY)` : ''
  const message = createRedactor(options.secrets).redact(`${options.provider}: ${status}${failure.detail}${after}${partial}${hint}`)
  return new ProviderError(failure.code, message, { cause: failure.cause, status: failure.status, retryAfterMs: failure.retry_after_ms })
}

/** The code an HTTP status gives, before any look at the body. */
export function codeForStatus(status: number): ProviderErrorCode {
  if (status === 401 || status === 403) return 'auth'
  if (status === 429) return 'rate_limit'
  if (status === 408) return 'network'
  if (status >= 500) return 'server'
  return 'other'
}

/** `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | null {
  const milliseconds = Number(headers?.get('retry-after-ms') ?? Number.NaN)
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds
  const value = headers?.get('retry-after')
  if (!value) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET'])

/** Failures that are not an HTTP status: our own ProviderErrors, a cut stream, an event that is not JSON, anything else. */
export function transportFailure(error: unknown): AttemptFailure {
  if (ProviderError.isInstance(error))
    return { code: error.code, status: error.status, detail: error.message, retry_after_ms: null, cause: error.cause }
  const message = error instanceof Error ? error.message : String(error)
  // The SDKs JSON.parse each event's data and let the SyntaxError through.
  if (error instanceof SyntaxError)
    return { code: 'bad_response', status: null, detail: `an event in the stream is not JSON (${message})`, retry_after_ms: null }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  const network =
    (error instanceof TypeError && (message === 'terminated' || message === 'fetch failed')) ||
    (typeof cause?.code === 'string' && (networkCodes.has(cause.code) || cause.code.startsWith('UND_ERR')))
  return {
    code: network ? 'network' : 'other',
    status: null,
    detail: network ? `network error: ${message}` : message,
    retry_after_ms: null,
    cause: error,
  }
}
