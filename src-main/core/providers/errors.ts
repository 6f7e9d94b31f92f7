import { ArborError } from '../errors'

/**
 * A failed model call. `code` says what the loop may do about it: `context_length` compacts and
 * retries; `rate_limit`, `server`, `network` and `timeout` (the server went silent) are retried
 * with backoff by the adapter; `bad_response` (an answer that is not the API's stream: an HTML
 * page, a JSON body, an event that is not JSON), `auth` and `other` end the agent with
 * `provider_error`; `aborted` ends it with the abort's reason.
 */
export type ProviderErrorCode =
  'context_length' | 'rate_limit' | 'server' | 'network' | 'timeout' | 'bad_response' | 'auth' | 'aborted' | 'other'

export class ProviderError extends ArborError<ProviderErrorCode> {
  static override readonly marker: symbol = Symbol.for('arbor.error.ProviderError')

  constructor(
    code: ProviderErrorCode,
    message: string,
    options?: { cause?: unknown; status?: number | null; retryAfterMs?: number | null },
  ) {
    super(code, message, options)
    this.name = 'ProviderError'
    this.status = options?.status ?? null
    this.retryAfterMs = options?.retryAfterMs ?? null
  }

  /** The HTTP status the API answered with, when it answered. */
  readonly status: number | null
  /** How long the API asked to wait before the next try (`retry-after`), when it said. */
  readonly retryAfterMs: number | null
}

/**
 * A failure that passes with waiting: a rate limit (429), an overloaded or unavailable API (503,
 * Anthropic's 529, an `overloaded` error). A 429 for an exhausted quota is `other`: it does not.
 */
export function isWaitable(failure: { code: ProviderErrorCode; status: number | null; detail?: string; message?: string }): boolean {
  if (failure.code === 'rate_limit') return true
  if (failure.code !== 'server') return false
  return failure.status === 503 || failure.status === 529 || /overloaded/i.test(failure.detail ?? failure.message ?? '')
}

export function abortedError(signal: AbortSignal): ProviderError {
  return new ProviderError('aborted', 'the model call was aborted', { cause: signal.reason })
}
