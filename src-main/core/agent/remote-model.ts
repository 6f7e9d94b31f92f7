import { ProviderError, abortedError, type ProviderErrorCode } from '../providers/errors'
import type { Provider, ProviderEvent, ProviderRequest } from '../providers/types'
import type { ToAgent, ToSupervisor } from '../protocol/messages'
import { HistorySender } from '../protocol/model-history'

type ModelEventMessage = Extract<ToAgent, { type: 'model_event' }>
type ModelErrorMessage = Extract<ToAgent, { type: 'model_error' }>

/** One call in flight: its events so far, and whoever waits for the next. */
interface OpenCall {
  queue: ProviderEvent[]
  failure: ProviderError | null
  done: boolean
  wake: (() => void) | null
}

/**
 * The agent's model, as seen from the agent process: every call goes to the supervisor
 * (`model_call`, with what changed of the history since the previous call), which holds the
 * key, checks the job's budget before the call, makes it, and streams the provider's events
 * back. The agent never holds a key, and the supervisor counts every call's usage as the one
 * place that does.
 */
export class RemoteModel implements Provider {
  private readonly calls = new Map<string, OpenCall>()
  private readonly history = new HistorySender()
  private nextId = 0

  constructor(
    readonly kind: string,
    readonly model: string,
    private readonly send: (message: ToSupervisor) => void,
  ) {}

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const { signal } = request
    if (signal?.aborted) throw abortedError(signal)
    const callId = `model_${++this.nextId}`
    const call: OpenCall = { queue: [], failure: null, done: false, wake: null }
    this.calls.set(callId, call)
    const onAbort = (): void => call.wake?.()
    signal?.addEventListener('abort', onAbort)
    this.send({ type: 'model_call', call_id: callId, ...this.history.next(request.messages, request.tools) })
    try {
      for (;;) {
        const event = call.queue.shift()
        if (event) {
          yield event
          if (event.type === 'finish') return
          continue
        }
        if (call.failure) throw call.failure
        if (signal?.aborted) {
          this.send({ type: 'model_cancel', call_id: callId })
          throw abortedError(signal)
        }
        if (call.done) throw new ProviderError('other', 'the model call ended without a finish event')
        await new Promise<void>((resolve) => (call.wake = resolve))
        call.wake = null
      }
    } finally {
      signal?.removeEventListener('abort', onAbort)
      this.calls.delete(callId)
    }
  }

  /** Routes a `model_event` or `model_error` to its call; false for a call this model does not know. */
  receive(message: ModelEventMessage | ModelErrorMessage): boolean {
    const call = this.calls.get(message.call_id)
    if (!call) return false
    if (message.type === 'model_event') {
      call.queue.push(...message.events)
      if (message.events.some((event) => event.type === 'finish')) call.done = true
    } else {
      call.failure = new ProviderError(message.code as ProviderErrorCode, message.message, { status: message.status })
      call.done = true
    }
    call.wake?.()
    return true
  }
}
