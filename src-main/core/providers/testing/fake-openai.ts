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

/**
 * A fake OpenAI Chat Completions server speaking the real streaming wire format, chunk for chunk
 * as recorded from the API (see /work/shared/fixtures/openai-stream-*.txt): `data: {json}` lines,
 * a first delta with `role: "assistant"`, tool calls as indexed deltas (id and name first,
 * argument pieces after), a finish chunk, a `choices: []` usage chunk when the request asked for
 * `stream_options.include_usage`, then `data: [DONE]`. Point the SDK (or `arbor run --provider
 * openai --base-url`) at `${server.url}/v1`.
 */

export interface FakeToolCall {
  /** Default `call_t<turn>_<index>`: unique within a conversation, stable across runs. */
  id?: string
  name: string
  /** An object is sent as its JSON; a string is sent as is (malformed JSON included). */
  arguments: string | Record<string, unknown>
  /** How many deltas the arguments arrive in; default about one per 8 characters. */
  pieces?: number
}

export interface FakeOpenAIReply {
  kind?: 'reply'
  /** A string streams word by word; an array streams one delta per element. */
  text?: string | string[]
  tool_calls?: FakeToolCall[]
  /** Wire usage; missing counts are estimated from the request and reply (4 characters a token). */
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; reasoning_tokens?: number }
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finish_reason?: string
  /** Default: the request's model. */
  model?: string
  /** The Sep 2024 shape: no `usage: null` or `obfuscation` on chunks, no `prompt_tokens_details`. */
  legacy?: boolean
  delay_ms?: number
  frame_delay_ms?: number
}

export type FakeOpenAIResponse =
  | FakeOpenAIReply
  | CommonResponse
  /** Streams `text`, then an error object in the stream (what the API sends when it fails mid-reply). */
  | { kind: 'stream_error'; text?: string; error: { message: string; type?: string; code?: string | null } }
  /**
   * Streams `text` and `tool_calls` (the last one cut off halfway through its arguments), then,
   * with no finish chunk: cuts the connection
   * (`disconnect`), stalls until the client leaves (`hang`), ends cleanly (`truncate`), or sends
   * an event whose data is cut-off JSON and ends (`garbled`).
   */
  | { kind: FaultyEnding; text?: string | string[]; tool_calls?: FakeToolCall[] }

export type FaultyEnding = 'disconnect' | 'hang' | 'truncate' | 'garbled'

/** The pieces a faulty ending sends of its last tool call's arguments. */
export const firstHalf = (pieces: string[]): string[] => pieces.slice(0, Math.ceil(pieces.length / 2))

export const openaiChatPaths = ['/v1/chat/completions', '/chat/completions'] as const

export function startFakeOpenAI(
  options: {
    queue?: FakeOpenAIResponse[]
    route?: (request: RecordedRequest) => FakeOpenAIResponse | undefined | Promise<FakeOpenAIResponse | undefined>
  } = {},
): Promise<FakeServer<FakeOpenAIResponse>> {
  return startFakeServer<FakeOpenAIResponse>({ paths: openaiChatPaths, ...options, encode: encodeOpenAI, errorBody: openaiErrorBody })
}

/** Routes by conversation: see `conversations` in fake-http.ts. */
export const openaiConversations = (scripts: Array<ConversationScript<FakeOpenAIResponse>>) => conversations(openaiView, scripts)

export function openaiErrorBody(
  status: number,
  message: string,
  type = status >= 500 ? 'server_error' : 'invalid_request_error',
  code: string | null = null,
) {
  return { error: { message, type, param: null, code } }
}

/** Errors as the real API sends them. */
export const openaiErrors = {
  /** A number is `retry-after` in seconds. */
  rateLimit: (retryAfter?: RetryAfter | number): CommonResponse => ({
    kind: 'http_error',
    status: 429,
    body: openaiErrorBody(
      429,
      'Rate limit reached for gpt-4o on requests per min (RPM): Limit 500, Used 500.',
      'requests',
      'rate_limit_exceeded',
    ),
    headers: retryAfterHeaders(retryAfter),
  }),
  server: (): CommonResponse => ({
    kind: 'http_error',
    status: 500,
    body: openaiErrorBody(500, 'The server had an error while processing your request. Sorry about that!'),
  }),
  overloaded: (): CommonResponse => ({
    kind: 'http_error',
    status: 503,
    body: openaiErrorBody(503, 'The engine is currently overloaded, please try again later.'),
  }),
  badGateway: (): CommonResponse => ({ kind: 'http_error', status: 502, body: openaiErrorBody(502, 'Bad gateway.') }),
  auth: (
    message = 'Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
  ): CommonResponse => ({
    kind: 'http_error',
    status: 401,
    body: openaiErrorBody(401, message, 'invalid_request_error', 'invalid_api_key'),
  }),
  contextLength: (): CommonResponse => ({
    kind: 'http_error',
    status: 400,
    body: openaiErrorBody(
      400,
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
      'invalid_request_error',
      'context_length_exceeded',
    ),
  }),
}

interface ChatRequest {
  model?: string
  messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }>
  tools?: Array<{ function?: { name?: string } }>
  stream_options?: { include_usage?: boolean }
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : ''

export function openaiView(request: RecordedRequest): ConversationView {
  const body = (request.body ?? {}) as ChatRequest
  const messages = body.messages ?? []
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant')
  return {
    model: body.model ?? '',
    system: messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => textOf(m.content))
      .join('\n\n'),
    first_user: textOf(messages.find((m) => m.role === 'user')?.content),
    turn: messages.filter((m) => m.role === 'assistant').length,
    tool_results: messages
      .slice(lastAssistant + 1)
      .filter((m) => m.role === 'tool')
      .map((m) => ({ tool_call_id: m.tool_call_id ?? '', content: textOf(m.content) })),
    tools: (body.tools ?? []).map((tool) => tool.function?.name ?? ''),
  }
}

function encodeOpenAI(response: FakeOpenAIResponse, request: RecordedRequest): CommonResponse | SseStream {
  if (response.kind === 'http_error' || response.kind === 'raw' || response.kind === 'no_answer') return response
  const body = (request.body ?? {}) as ChatRequest
  const reply: FakeOpenAIReply =
    response.kind === 'reply' || response.kind === undefined
      ? response
      : { text: response.text, tool_calls: response.kind === 'stream_error' ? undefined : response.tool_calls }
  const model = reply.model ?? body.model ?? 'gpt-4o'
  const base = { id: `chatcmpl-fake${request.seq}`, object: 'chat.completion.chunk', created: 1754693439, model }
  const extras = reply.legacy ? { system_fingerprint: 'fp_fake' } : { service_tier: 'default', system_fingerprint: 'fp_fake', usage: null }
  const frame = (payload: object, obfuscation = 'fake'): string =>
    `data: ${JSON.stringify(reply.legacy ? payload : { ...payload, obfuscation })}\n\n`
  const chunk = (delta: object, finish: string | null = null): string =>
    frame({ ...base, ...extras, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })

  const textPieces = typeof reply.text === 'string' ? words(reply.text) : (reply.text ?? [])
  const turn = openaiView(request).turn
  const calls = (reply.tool_calls ?? []).map((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
    return {
      id: call.id ?? `call_t${turn}_${index}`,
      name: call.name,
      args,
      pieces: split(args, call.pieces ?? Math.ceil(args.length / 8)),
    }
  })
  const frames = [chunk({ role: 'assistant', content: null })]
  for (const piece of textPieces) frames.push(chunk({ content: piece }))
  const faulty = response.kind !== undefined && response.kind !== 'reply' && response.kind !== 'stream_error'
  calls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    const pieces = faulty && index === calls.length - 1 ? firstHalf(call.pieces) : call.pieces
    for (const piece of pieces) if (piece) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  if (response.kind === 'stream_error') {
    frames.push(`data: ${JSON.stringify({ error: { param: null, code: null, type: 'server_error', ...response.error } })}\n\n`)
    return { frames, ending: 'end' }
  }
  if (response.kind === 'garbled')
    return { frames: [...frames, 'data: {"id": "chatcmpl-garbled", "choices": [{"index": 0, "delta": {"content": \n\n'], ending: 'end' }
  if (response.kind === 'truncate') return { frames, ending: 'end' }
  if (response.kind === 'disconnect' || response.kind === 'hang') return { frames, ending: response.kind }

  frames.push(chunk({}, reply.finish_reason ?? (calls.length > 0 ? 'tool_calls' : 'stop')))
  if (body.stream_options?.include_usage) {
    const outputCharacters = textPieces.join('').length + calls.reduce((sum, call) => sum + call.name.length + call.args.length, 0)
    const prompt =
      reply.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length)
    const completion = reply.usage?.completion_tokens ?? estimateTokens(outputCharacters) + (reply.usage?.reasoning_tokens ?? 0)
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(reply.legacy ? {} : { prompt_tokens_details: { cached_tokens: reply.usage?.cached_tokens ?? 0, audio_tokens: 0 } }),
      completion_tokens_details: reply.legacy
        ? { reasoning_tokens: reply.usage?.reasoning_tokens ?? 0 }
        : {
            reasoning_tokens: reply.usage?.reasoning_tokens ?? 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
    }
    const { usage: _null, ...withoutUsage } = extras as { usage?: null }
    frames.push(frame({ ...base, ...withoutUsage, choices: [], usage }))
  }
  frames.push('data: [DONE]\n\n')
  return { frames, ending: 'end', delay_ms: reply.delay_ms, frame_delay_ms: reply.frame_delay_ms }
}
