import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk'
import type { MessageDeltaUsage, Usage as AnthropicUsage } from '@anthropic-ai/sdk/resources/messages'
import type { Usage } from '../trace/usage'
import { ephemeral, toAnthropicMessages, toAnthropicTool } from './anthropic-request'
import { ProviderError, abortedError, type ProviderErrorCode } from './errors'
import { costOf, priceFor, type PriceTable } from './pricing'
import { limitKeyOf } from './limit-key'
import { expectEventStream, summarizeBody } from './response-body'
import { codeForStatus, retryAfterMs, transportFailure, withRetries, type AttemptFailure, type RetryPolicy } from './retry'
import { watched, type StreamTimeouts, type StreamWatchdog } from './stream-watchdog'
import type { FinishReason, Provider, ProviderEvent, ProviderRequest, Sleep, ToolCall } from './types'

export interface AnthropicProviderOptions {
  model: string
  apiKey: string
  /** Without `/v1` (the SDK adds it); a trailing `/v1` is dropped. Undefined: the public API. */
  baseURL?: string
  sleep: Sleep
  maxTokens?: number
  retry?: Partial<RetryPolicy>
  /** First-output and idle timeouts of each attempt; `defaultStreamTimeouts` for what is not given. */
  timeouts?: Partial<StreamTimeouts>
  random?: () => number
  prices?: PriceTable
}

export const defaultMaxTokens = 8192

/** Messages API, streaming, tool_use blocks, prompt caching. Retries are ours: the SDK client never retries. */
export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const baseURL = options.baseURL?.replace(/\/v1\/?$/, '')
  const client = new Anthropic({ apiKey: options.apiKey, baseURL, maxRetries: 0 })
  return {
    kind: 'anthropic',
    model: options.model,
    limitKey: limitKeyOf('anthropic', baseURL, options.apiKey),
    stream: (request) =>
      withRetries(
        {
          provider: 'anthropic',
          sleep: options.sleep,
          signal: request.signal,
          policy: options.retry,
          random: options.random,
          classify: classifyAnthropicError,
          secrets: [options.apiKey],
          gate: request.gate,
        },
        () => watched(options.timeouts, request.signal, (watchdog) => streamOnce(watchdog, client, options, request)),
      ),
  }
}

async function* streamOnce(
  watchdog: StreamWatchdog,
  client: Anthropic,
  options: AnthropicProviderOptions,
  request: ProviderRequest,
): AsyncGenerator<ProviderEvent> {
  const { system, messages } = toAnthropicMessages(request.messages)
  const tools = request.tools.map((tool, index) => toAnthropicTool(tool, index === request.tools.length - 1))
  const { data: stream, response } = await watchdog.wait(
    client.messages
      .create(
        {
          model: options.model,
          max_tokens: options.maxTokens ?? defaultMaxTokens,
          ...(system ? { system: [{ type: 'text', text: system, cache_control: ephemeral }] } : {}),
          ...(tools.length > 0 ? { tools } : {}),
          messages,
          stream: true,
        },
        { signal: watchdog.signal },
      )
      .withResponse(),
  )
  await expectEventStream(response, watchdog)
  let events = 0
  const calls = new Map<number, ToolCall & { input: unknown }>()
  let startUsage: AnthropicUsage | null = null
  let finalUsage: MessageDeltaUsage | null = null
  let stopReason: string | null = null
  let answeringModel = options.model
  let responseId: string | undefined
  const complete = (call: ToolCall & { input: unknown }): ToolCall => ({
    id: call.id,
    name: call.name,
    // No input deltas: the block's own input (`{}` for a tool without arguments).
    arguments: call.arguments || JSON.stringify(call.input ?? {}),
  })
  for await (const event of watchdog.chunks(stream)) {
    events += 1
    // message_start comes at once; the reply has begun with the first content block.
    if (event.type !== 'message_start') watchdog.replyStarted()
    switch (event.type) {
      case 'message_start':
        startUsage = event.message.usage
        answeringModel = event.message.model || answeringModel
        responseId = event.message.id || responseId
        break
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block
          calls.set(event.index, { id, name, arguments: '', input })
        } else if (event.content_block.type === 'text' && event.content_block.text) {
          yield { type: 'text_delta', text: event.content_block.text }
        }
        break
      case 'content_block_delta':
        // thinking_delta, signature_delta and citations_delta carry nothing the loop keeps.
        if (event.delta.type === 'text_delta' && event.delta.text) yield { type: 'text_delta', text: event.delta.text }
        if (event.delta.type === 'input_json_delta') {
          const call = calls.get(event.index)
          if (call) call.arguments += event.delta.partial_json
        }
        break
      case 'content_block_stop': {
        const call = calls.get(event.index)
        if (call) {
          calls.delete(event.index)
          yield { type: 'tool_call', call: complete(call) }
        }
        break
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason
        finalUsage = event.usage
        break
    }
  }
  if (request.signal?.aborted) throw abortedError(request.signal)
  if (stopReason === null || startUsage === null) {
    const missing = startUsage === null ? 'no message_start' : 'no stop_reason'
    throw new ProviderError(
      'network',
      events === 0 ? 'the stream ended without a single event' : `the stream ended before the reply was complete (${missing})`,
    )
  }
  for (const call of calls.values()) yield { type: 'tool_call', call: complete(call) }
  const usage = anthropicUsage(startUsage, finalUsage)
  const model = priceFor(answeringModel, options.prices) ? answeringModel : options.model
  yield {
    type: 'finish',
    usage,
    cost_usd: costOf(model, usage, options.prices),
    finish_reason: finishReason(stopReason),
    response: { id: responseId, model: answeringModel },
  }
}

/**
 * Anthropic's input_tokens exclude the cached ones; Arbor's include them. message_delta's counts
 * are cumulative, so they replace message_start's where present.
 */
export function anthropicUsage(start: AnthropicUsage, final: MessageDeltaUsage | null): Usage {
  const cacheRead = count(final?.cache_read_input_tokens ?? start.cache_read_input_tokens)
  const cacheWrite = count(final?.cache_creation_input_tokens ?? start.cache_creation_input_tokens)
  return {
    input_tokens: count(final?.input_tokens ?? start.input_tokens) + cacheRead + cacheWrite,
    output_tokens: count(final?.output_tokens ?? start.output_tokens),
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: count(final?.output_tokens_details?.thinking_tokens),
  }
}

const count = (value: number | null | undefined): number => (typeof value === 'number' && value > 0 ? Math.round(value) : 0)

function finishReason(reason: string): FinishReason {
  if (reason === 'tool_use') return 'tool_calls'
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop'
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length'
  if (reason === 'refusal') return 'content_filter'
  return 'other'
}

const contextLengthText = /prompt is too long|exceed context limit|context window|too many tokens/i

export function classifyAnthropicError(error: unknown): AttemptFailure {
  if (error instanceof APIUserAbortError) return { code: 'aborted', status: null, detail: 'aborted', retry_after_ms: null }
  if (error instanceof APIConnectionError) {
    return { code: 'network', status: null, detail: `network error: ${error.message}`, retry_after_ms: null, cause: error.cause }
  }
  if (!(error instanceof APIError)) return transportFailure(error)
  const body = (error.error ?? {}) as { error?: { type?: unknown; message?: unknown } }
  // A body that is not the API's JSON (a proxy's 502 page) arrives as the SDK's message, verbatim.
  const message = typeof body.error?.message === 'string' ? body.error.message : summarizeBody(error.message.replace(/^\d{3}\s+/, ''))
  const type = typeof body.error?.type === 'string' ? body.error.type : undefined
  const status = error.status ?? null
  const contextLength = status === 413 || ((status === null || status === 400) && contextLengthText.test(message))
  const code: ProviderErrorCode = contextLength ? 'context_length' : status !== null ? codeForStatus(status) : midStreamCode(type)
  // No SDK error as cause: its message may repeat what the server said, key included.
  return { code, status, detail: type ? `${type}: ${message}` : message, retry_after_ms: retryAfterMs(error.headers) }
}

/** An `event: error` inside a 200 stream (overloaded_error, api_error, …) has no status. */
function midStreamCode(type: string | undefined): ProviderErrorCode {
  if (type === 'rate_limit_error') return 'rate_limit'
  if (type === 'authentication_error' || type === 'permission_error') return 'auth'
  if (type === 'invalid_request_error') return 'other'
  return 'server'
}
