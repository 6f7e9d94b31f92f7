import {
  conversations,
  estimateTokens,
  retryAfterHeaders,
  split,
  startFakeServer,
  words,
  type CommonResponse,
  type ConversationScript,
  type ConversationView,
  type FakeServer,
  type RecordedRequest,
  type RetryAfter,
  type SseStream,
} from './fake-http'
import { firstHalf, type FakeToolCall, type FaultyEnding } from './fake-openai'

export type { FakeToolCall, FaultyEnding } from './fake-openai'

/**
 * A fake Anthropic Messages server speaking the real streaming wire format, as recorded from the
 * API (see /work/shared/fixtures/anthropic-stream-*.txt): `event: <type>` + `data: {json}` pairs
 * (message_start, content_block_start/delta/stop, ping, message_delta, message_stop), an optional
 * thinking block with a signature, text and tool_use blocks with `input_json_delta` pieces, and
 * cumulative usage on message_delta. The SDK posts to `/v1/messages`: point it (or `arbor run
 * --provider anthropic --base-url`) at `server.url`.
 */

export interface FakeAnthropicReply {
  kind?: 'reply'
  /** A thinking block before the text (its text is not part of the reply). */
  thinking?: string
  /** A string streams word by word; an array streams one delta per element. */
  text?: string | string[]
  tool_calls?: FakeToolCall[]
  /** Wire usage; missing counts are estimated (4 characters a token). `input_tokens` excludes cached ones, as on the wire. */
  usage?: {
    input_tokens?: number
    output_tokens?: number
    cache_creation_input_tokens?: number
    cache_read_input_tokens?: number
    thinking_tokens?: number
  }
  /** Default `tool_use` when there are tool calls, else `end_turn`. */
  stop_reason?: string
  model?: string
  delay_ms?: number
  frame_delay_ms?: number
}

export type FakeAnthropicResponse =
  | FakeAnthropicReply
  | CommonResponse
  /** Streams `text`, then an `event: error` (e.g. overloaded_error), as the API does when it fails mid-reply. */
  | { kind: 'stream_error'; text?: string; error: { type: string; message: string } }
  /** As in fake-openai.ts: `text` and `tool_calls` blocks (the last one cut off, without its stop), then no message_delta or message_stop. */
  | { kind: FaultyEnding; text?: string | string[]; tool_calls?: FakeToolCall[] }

export const anthropicMessagesPaths = ['/v1/messages'] as const

export function startFakeAnthropic(
  options: { queue?: FakeAnthropicResponse[]; route?: (request: RecordedRequest) => FakeAnthropicResponse | undefined } = {},
): Promise<FakeServer<FakeAnthropicResponse>> {
  return startFakeServer<FakeAnthropicResponse>({
    paths: anthropicMessagesPaths,
    ...options,
    encode: encodeAnthropic,
    errorBody: anthropicErrorBody,
  })
}

export const anthropicConversations = (scripts: Array<ConversationScript<FakeAnthropicResponse>>) => conversations(anthropicView, scripts)

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export function anthropicErrorBody(status: number, message: string, type = errorTypes[status] ?? 'api_error') {
  return { type: 'error', error: { type, message }, request_id: 'req_fake' }
}

const httpError = (status: number, message: string, headers: Record<string, string> = {}): CommonResponse => ({
  kind: 'http_error',
  status,
  body: anthropicErrorBody(status, message),
  headers: { 'request-id': 'req_fake', ...headers },
})

/** Errors as the real API sends them. */
export const anthropicErrors = {
  /** A number is `retry-after` in seconds. */
  rateLimit: (retryAfter?: RetryAfter | number) =>
    httpError(
      429,
      'This request would exceed the rate limit for your organization of 50 requests per minute.',
      retryAfterHeaders(retryAfter),
    ),
  server: () => httpError(500, 'Internal server error'),
  badGateway: () => httpError(502, 'Bad gateway'),
  unavailable: () => httpError(503, 'Service unavailable'),
  overloaded: () => httpError(529, 'Overloaded'),
  auth: (message = 'invalid x-api-key') => httpError(401, message),
  contextLength: () => httpError(400, 'prompt is too long: 215031 tokens > 200000 maximum'),
}

interface MessagesRequest {
  model?: string
  system?: string | Array<{ text?: string }>
  messages?: Array<{ role: string; content: string | Array<{ type: string; text?: string; tool_use_id?: string; content?: unknown }> }>
  tools?: Array<{ name?: string }>
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((block: { type?: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : '')).join('')
      : ''

export function anthropicView(request: RecordedRequest): ConversationView {
  const body = (request.body ?? {}) as MessagesRequest
  const messages = body.messages ?? []
  const last = messages.at(-1)
  const results = last?.role === 'user' && Array.isArray(last.content) ? last.content.filter((block) => block.type === 'tool_result') : []
  return {
    model: body.model ?? '',
    system: typeof body.system === 'string' ? body.system : (body.system ?? []).map((block) => block.text ?? '').join('\n\n'),
    first_user: textOf(messages.find((m) => m.role === 'user')?.content),
    turn: messages.filter((m) => m.role === 'assistant').length,
    tool_results: results.map((block) => ({
      tool_call_id: block.tool_use_id ?? '',
      content: typeof block.content === 'string' ? block.content : textOf(block.content),
    })),
    tools: (body.tools ?? []).map((tool) => tool.name ?? ''),
  }
}

/** The API pings once, right after the first content_block_start (spaced as recorded). */
const withPing = (frames: string[]): string[] =>
  frames.length < 2 ? frames : [...frames.slice(0, 2), 'event: ping\ndata: {"type": "ping"}\n\n', ...frames.slice(2)]

const event = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

function encodeAnthropic(response: FakeAnthropicResponse, request: RecordedRequest): CommonResponse | SseStream {
  if (response.kind === 'http_error' || response.kind === 'raw' || response.kind === 'no_answer') return response
  const body = (request.body ?? {}) as MessagesRequest
  const reply: FakeAnthropicReply =
    response.kind === 'reply' || response.kind === undefined
      ? response
      : { text: response.text, tool_calls: response.kind === 'stream_error' ? undefined : response.tool_calls }
  const model = reply.model ?? body.model ?? 'claude-sonnet-4-20250514'
  const turn = anthropicView(request).turn
  const textPieces = typeof reply.text === 'string' ? words(reply.text) : (reply.text ?? [])
  const calls = (reply.tool_calls ?? []).map((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
    return {
      id: call.id ?? `toolu_t${turn}_${index}`,
      name: call.name,
      args,
      pieces: split(args, call.pieces ?? Math.ceil(args.length / 8)),
    }
  })
  const usage = reply.usage ?? {}
  const cacheWrite = usage.cache_creation_input_tokens ?? 0
  const cacheRead = usage.cache_read_input_tokens ?? 0
  const input = usage.input_tokens ?? estimateTokens(JSON.stringify([body.system, body.messages, body.tools]).length)
  const startUsage = {
    input_tokens: input,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: 1,
    service_tier: 'standard',
    inference_geo: 'not_available',
  }
  const message = {
    model,
    id: `msg_fake${request.seq}`,
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: startUsage,
  }
  const frames = [event('message_start', { message })]
  let index = 0
  if (reply.thinking !== undefined) {
    frames.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }))
    for (const piece of words(reply.thinking))
      frames.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }))
    frames.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'RmFrZVNpZ25hdHVyZQ==' } }))
    frames.push(event('content_block_stop', { index }))
    index += 1
  }
  if (textPieces.length > 0) {
    frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }))
    for (const piece of textPieces) frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }))
    frames.push(event('content_block_stop', { index }))
    index += 1
  }
  const faulty = response.kind !== undefined && response.kind !== 'reply' && response.kind !== 'stream_error'
  calls.forEach((call, position) => {
    const cut = faulty && position === calls.length - 1
    frames.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {}, caller: { type: 'direct' } },
      }),
    )
    for (const piece of ['', ...(cut ? firstHalf(call.pieces) : call.pieces)]) {
      frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }))
    }
    if (!cut) frames.push(event('content_block_stop', { index }))
    index += 1
  })
  if (response.kind === 'stream_error') {
    frames.push(event('error', { error: response.error }))
    return { frames: withPing(frames), ending: 'end' }
  }
  if (response.kind === 'garbled') {
    const cut = `event: content_block_delta\ndata: {"type": "content_block_delta", "index": ${index}, "delta": {"type": "text_del\n\n`
    return { frames: [...withPing(frames), cut], ending: 'end' }
  }
  if (response.kind === 'truncate') return { frames: withPing(frames), ending: 'end' }
  if (response.kind === 'disconnect' || response.kind === 'hang') return { frames: withPing(frames), ending: response.kind }
  const outputCharacters = textPieces.join('').length + calls.reduce((sum, call) => sum + call.name.length + call.args.length, 0)
  const thinkingTokens = usage.thinking_tokens ?? (reply.thinking ? estimateTokens(reply.thinking.length) : 0)
  const output = usage.output_tokens ?? estimateTokens(outputCharacters) + thinkingTokens
  frames.push(
    event('message_delta', {
      delta: { stop_reason: reply.stop_reason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'), stop_sequence: null },
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: cacheWrite,
        cache_read_input_tokens: cacheRead,
        output_tokens: output,
        ...(thinkingTokens > 0 ? { output_tokens_details: { thinking_tokens: thinkingTokens } } : {}),
      },
    }),
  )
  frames.push(event('message_stop', {}))
  return { frames: withPing(frames), ending: 'end', delay_ms: reply.delay_ms, frame_delay_ms: reply.frame_delay_ms }
}
