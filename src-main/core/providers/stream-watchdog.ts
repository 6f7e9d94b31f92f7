import { ProviderError, abortedError } from './errors'

/**
 * How long one attempt may stay silent. The SDKs' own timeout only covers the wait for response
 * headers (10 minutes by default) and nothing after them, so a server that stalls mid-stream
 * would hang the agent until it is killed. The watchdog covers both, and counts only the time
 * spent waiting on the network, not the time the consumer takes over each event.
 */
export interface StreamTimeouts {
  /**
   * From sending the request to the first piece of the reply (text, thinking, a tool call).
   * Covers connecting, the response headers and a silent start: OpenAI's reasoning models send
   * nothing while they think, and a local model sends nothing while it reads a long prompt.
   */
  first_output_ms: number
  /** The longest silence between two chunks once the reply has started. */
  idle_ms: number
}

export const defaultStreamTimeouts: StreamTimeouts = { first_output_ms: 300_000, idle_ms: 60_000 }

/** One attempt's clock and the abort signal its request runs under. */
export class StreamWatchdog {
  readonly signal: AbortSignal
  private readonly controller = new AbortController()
  private readonly timeouts: StreamTimeouts
  private readonly deadline: number
  private started = false
  private readonly onParentAbort = (): void => this.controller.abort(this.parent?.reason)

  constructor(
    timeouts: Partial<StreamTimeouts> | undefined,
    private readonly parent?: AbortSignal,
  ) {
    this.timeouts = { ...defaultStreamTimeouts, ...timeouts }
    this.deadline = Date.now() + this.timeouts.first_output_ms
    this.signal = this.controller.signal
    if (parent?.aborted) this.controller.abort(parent.reason)
    else parent?.addEventListener('abort', this.onParentAbort, { once: true })
  }

  /** The reply has begun: from now on each wait may last `idle_ms`. */
  replyStarted(): void {
    this.started = true
  }

  /**
   * Settles with `promise`, or rejects at once with a `timeout` ProviderError when this phase's
   * time runs out, or an `aborted` one when the caller aborts. Either way the request is cut.
   */
  wait<T>(promise: Promise<T>): Promise<T> {
    const { parent } = this
    if (parent?.aborted) {
      promise.catch(() => {}) // it rejects too, once the SDK sees the abort
      return Promise.reject(abortedError(parent))
    }
    const ms = this.started ? this.timeouts.idle_ms : Math.max(0, this.deadline - Date.now())
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer)
        parent?.removeEventListener('abort', onAbort)
      }
      const onAbort = (): void => {
        settle()
        reject(abortedError(parent as AbortSignal))
      }
      const timer = setTimeout(() => {
        settle()
        const error = new ProviderError(
          'timeout',
          this.started ? `the stream stalled: nothing for ${seconds(ms)}` : `no reply within ${seconds(this.timeouts.first_output_ms)}`,
        )
        this.controller.abort(error)
        reject(error)
      }, ms)
      parent?.addEventListener('abort', onAbort, { once: true })
      promise.then(
        (value) => {
          settle()
          resolve(value)
        },
        (error: unknown) => {
          settle()
          reject(error)
        },
      )
    })
  }

  /** Iterates `source`, each wait for the next chunk under the watchdog. */
  async *chunks<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = source[Symbol.asyncIterator]()
    let done = false
    try {
      for (;;) {
        const next = await this.wait(iterator.next())
        if (next.done) {
          done = true
          return
        }
        yield next.value
      }
    } finally {
      // Not awaited: after a timeout the SDK's pending read only settles once the abort lands.
      if (!done) void iterator.return?.()?.catch(() => {})
    }
  }

  /** Ends the request if it is still open, and lets go of the caller's signal. */
  dispose(): void {
    this.parent?.removeEventListener('abort', this.onParentAbort)
    if (!this.controller.signal.aborted) this.controller.abort()
  }
}

/** One attempt under a fresh watchdog, which is disposed however the attempt ends. */
export async function* watched<T>(
  timeouts: Partial<StreamTimeouts> | undefined,
  signal: AbortSignal | undefined,
  attempt: (watchdog: StreamWatchdog) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const watchdog = new StreamWatchdog(timeouts, signal)
  try {
    yield* attempt(watchdog)
  } finally {
    watchdog.dispose()
  }
}

const seconds = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`)
