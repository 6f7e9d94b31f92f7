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

  constructor(code: ProviderErrorCode, message: string, options?: { cause?: unknown; status?: number | null }) {
    super(code, message, options)
    this.name = 'ProviderError'
    this.status = options?.status ?? null
  }

  /** The HTTP status the API answered with, when it answered. */
  readonly status: number | null
}

export function abortedError(signal: AbortSignal): ProviderError {
  return new ProviderError('aborted', 'the model call was aborted', { cause: signal.reason })
}
