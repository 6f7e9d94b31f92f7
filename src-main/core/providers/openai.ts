import { randomUUID } from 'node:crypto'
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai'
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { CompletionUsage } from 'openai/resources/completions'
import { emptyUsage, type Usage } from '../trace/usage'
import { ProviderError, abortedError, type ProviderErrorCode } from './errors'
import { costOf, priceFor, type PriceTable } from './pricing'
import { limitKeyOf } from './limit-key'
import { expectEventStream, summarizeBody } from './response-body'
import { codeForStatus, retryAfterMs, transportFailure, withRetries, type AttemptFailure, type RetryPolicy } from './retry'
import { watched, type StreamTimeouts, type StreamWatchdog } from './stream-watchdog'
import type { FinishReason, Provider, ProviderEvent, ProviderMessage, ProviderRequest, Sleep, ToolCall, ToolDefinition } from './types'

export interface OpenAIProviderOptions {
  model: string
  apiKey: string
  /** Undefined: the public API. OpenAI-compatible servers (Ollama, vLLM, …) end in `/v1`. */
  baseURL?: string
  sleep: Sleep
  retry?: Partial<RetryPolicy>
  /** First-output and idle timeouts of each attempt; `defaultStreamTimeouts` for what is not given. */
  timeouts?: Partial<StreamTimeouts>
  random?: () => number
  prices?: PriceTable
}

/** Chat Completions, streaming, function tools. Retries are ours: the SDK client never retries. */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0 })
  return {
    kind: 'openai',
    model: options.model,
    limitKey: limitKeyOf('openai', options.baseURL, options.apiKey),
    stream: (request) =>
      withRetries(
        {
          provider: 'openai',
          sleep: options.sleep,
          signal: request.signal,
          policy: options.retry,
          random: options.random,
          classify: classifyOpenAIError,
          secrets: [options.apiKey],
          gate: request.gate,
        },
        () => watched(options.timeouts, request.signal, (watchdog) => streamOnce(watchdog, client, options, request)),
      ),
  }
}

async function* streamOnce(
  watchdog: StreamWatchdog,
  client: OpenAI,
  options: OpenAIProviderOptions,
  request: ProviderRequest,
): AsyncGenerator<ProviderEvent> {
  const tools = request.tools.length > 0 ? { tools: request.tools.map(toOpenAITool), parallel_tool_calls: true } : {}
  const { data: stream, response } = await watchdog.wait(
    client.chat.completions
      .create(
        {
          model: options.model,
          messages: request.messages.map(toOpenAIMessage),
          ...tools,
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: watchdog.signal },
      )
      .withResponse(),
  )
  await expectEventStream(response, watchdog)
  let chunks = 0
  const calls = new Map<number, ToolCall>()
  let finish: string | null = null
  let usage: CompletionUsage | null = null
  let answeringModel = options.model
  let responseId: string | undefined
  for await (const chunk of watchdog.chunks(stream)) {
    chunks += 1
    if (chunk.id && !responseId) responseId = chunk.id
    if (carriesOutput(chunk)) watchdog.replyStarted()
    if (chunk.model) answeringModel = chunk.model
    if (chunk.usage) usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (!choice) continue
    const text = (choice.delta?.content ?? '') + (choice.delta?.refusal ?? '')
    if (text) yield { type: 'text_delta', text }
    for (const part of choice.delta?.tool_calls ?? []) {
      // Some compatible servers omit `index`: a part with an id starts a call, one without continues the last.
      const index = part.index ?? (part.id ? calls.size : Math.max(0, calls.size - 1))
      const call = calls.get(index) ?? { id: '', name: '', arguments: '' }
      calls.set(index, call)
      if (part.id && !call.id) call.id = part.id
      if (part.function?.name && !call.name) call.name = part.function.name
      call.arguments += part.function?.arguments ?? ''
    }
    if (choice.finish_reason) finish = choice.finish_reason
  }
  if (request.signal?.aborted) throw abortedError(request.signal)
  if (finish === null) {
    throw new ProviderError(
      'network',
      chunks === 0 ? 'the stream ended without a single chunk' : 'the stream ended before the reply was complete (no finish_reason)',
    )
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
  for (const call of toolCalls) yield { type: 'tool_call', call: { ...call, id: call.id || `call_${randomUUID()}` } }
  const total = usage ? openAIUsage(usage) : emptyUsage()
  const model = priceFor(answeringModel, options.prices) ? answeringModel : options.model
  yield {
    type: 'finish',
    usage: total,
    // A server that sends no usage gets no cost, not a cost of zero.
    cost_usd: usage ? costOf(model, total, options.prices) : null,
    finish_reason: finishReason(finish, toolCalls.length > 0),
    response: { id: responseId, model: answeringModel },
  }
}

/** Anything past the first chunk's `role`: text, a refusal, tool calls, a compatible server's reasoning, a finish. */
function carriesOutput(chunk: ChatCompletionChunk): boolean {
  const choice = chunk.choices?.[0]
  if (!choice) return false
  return (
    choice.finish_reason != null ||
    Object.entries(choice.delta ?? {}).some(([key, value]) => key !== 'role' && value != null && value !== '')
  )
}

/** OpenAI's prompt_tokens already include the cached ones. */
export function openAIUsage(usage: CompletionUsage): Usage {
  return {
    input_tokens: count(usage.prompt_tokens),
    output_tokens: count(usage.completion_tokens),
    cache_read_tokens: count(usage.prompt_tokens_details?.cached_tokens),
    cache_write_tokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    reasoning_tokens: count(usage.completion_tokens_details?.reasoning_tokens),
  }
}

const count = (value: number | null | undefined): number => (typeof value === 'number' && value > 0 ? Math.round(value) : 0)

function finishReason(reason: string, madeCalls: boolean): FinishReason {
  if (reason === 'tool_calls' || reason === 'function_call' || (reason === 'stop' && madeCalls)) return 'tool_calls'
  if (reason === 'stop' || reason === 'length' || reason === 'content_filter') return reason
  return 'other'
}

export function toOpenAIMessage(message: ProviderMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content }
    case 'assistant': {
      const calls = message.tool_calls ?? []
      if (calls.length === 0) return { role: 'assistant', content: message.content }
      return {
        role: 'assistant',
        content: message.content || null,
        tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      }
    }
  }
}

const toOpenAITool = (tool: ToolDefinition): ChatCompletionTool => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
})

const contextLengthText = /maximum context length|context length|context window|too many tokens|prompt is too long/i

export function classifyOpenAIError(error: unknown): AttemptFailure {
  if (error instanceof APIUserAbortError) return { code: 'aborted', status: null, detail: 'aborted', retry_after_ms: null }
  if (error instanceof APIConnectionError) {
    return { code: 'network', status: null, detail: `network error: ${error.message}`, retry_after_ms: null, cause: error.cause }
  }
  if (!(error instanceof APIError)) return transportFailure(error)
  const body = (error.error ?? {}) as { message?: unknown; type?: unknown; code?: unknown }
  // A body that is not the API's JSON (a proxy's 502 page) arrives as the SDK's message, verbatim.
  const message = typeof body.message === 'string' ? body.message : summarizeBody(error.message.replace(/^\d{3}\s+/, ''))
  const label = [body.code, body.type].find((value): value is string => typeof value === 'string' && value !== '')
  const status = error.status ?? null
  const contextLength =
    (status === null || status === 400 || status === 413) && (body.code === 'context_length_exceeded' || contextLengthText.test(message))
  // A 429 for an exhausted quota does not pass with waiting.
  const code: ProviderErrorCode = contextLength
    ? 'context_length'
    : body.code === 'insufficient_quota'
      ? 'other'
      : status !== null
        ? codeForStatus(status)
        : midStreamCode(label)
  // No SDK error as cause: its message may repeat what the server said, key included.
  return { code, status, detail: label ? `${label}: ${message}` : message, retry_after_ms: retryAfterMs(error.headers) }
}

/** An error event inside a 200 stream has no status; its type says what it was. */
function midStreamCode(label: string | undefined): ProviderErrorCode {
  if (!label) return 'server'
  if (/rate_limit/.test(label)) return 'rate_limit'
  if (/invalid_api_key|authentication|permission/.test(label)) return 'auth'
  if (/invalid_request/.test(label)) return 'other'
  return 'server'
}
