import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { collectReply } from './collect'
import { createOpenAIProvider } from './openai'
import { split } from './testing/fake-http'
import { openaiErrors, startFakeOpenAI, type FakeOpenAIResponse } from './testing/fake-openai'
import type { FakeServer } from './testing/fake-http'
import type { ProviderEvent, ProviderRequest } from './types'
import { failure } from './testing/failure'

const apiKey = 'sk-test-0123456789abcdefSECRET'
const request: ProviderRequest = {
  messages: [
    { role: 'system', content: 'You are the root agent.' },
    { role: 'user', content: 'Survey the repository.' },
  ],
  tools: [
    { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'task', description: 'Delegate', parameters: { type: 'object' } },
  ],
}

let server: FakeServer<FakeOpenAIResponse>
let waits: number[]
beforeEach(async () => {
  server = await startFakeOpenAI()
  waits = []
})
afterEach(() => server.close())

const provider = (model = 'gpt-4o') =>
  createOpenAIProvider({ model, apiKey, baseURL: `${server.url}/v1`, random: () => 0.5, sleep: async (ms) => void waits.push(ms) })

async function events(iterable: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const all: ProviderEvent[] = []
  for await (const event of iterable) all.push(event)
  return all
}

describe('the openai provider against a fake Chat Completions server', () => {
  it('streams text as deltas and sends a streaming request with usage, tools and parallel calls', async () => {
    server.enqueue({ text: 'I will look around first.' })
    const all = await events(provider().stream(request))
    const deltas = all.filter((event) => event.type === 'text_delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.map((event) => event.text).join('')).toBe('I will look around first.')
    expect(all.at(-1)).toMatchObject({
      type: 'finish',
      finish_reason: 'stop',
      response: { id: 'chatcmpl-fake1', model: expect.any(String) },
    })

    const [sent] = server.requests
    expect(sent?.path).toBe('/v1/chat/completions')
    expect(sent?.headers.authorization).toBe(`Bearer ${apiKey}`)
    expect(sent?.body).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      parallel_tool_calls: true,
      messages: [
        { role: 'system', content: 'You are the root agent.' },
        { role: 'user', content: 'Survey the repository.' },
      ],
      tools: [
        { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: request.tools[0]?.parameters } },
        { type: 'function', function: { name: 'task', description: 'Delegate', parameters: { type: 'object' } } },
      ],
    })
  })

  it('omits tools and parallel_tool_calls when the agent has no tools (the API rejects the flag alone)', async () => {
    server.enqueue({ text: 'ok' })
    await collectReply(provider(), { ...request, tools: [] })
    expect(server.requests[0]?.body).not.toHaveProperty('parallel_tool_calls')
    expect(server.requests[0]?.body).not.toHaveProperty('tools')
  })

  it('yields one whole tool call', async () => {
    server.enqueue({ tool_calls: [{ name: 'read_file', arguments: { path: 'src/main.ts' } }] })
    const all = await events(provider().stream(request))
    expect(all.filter((event) => event.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'call_t0_0', name: 'read_file', arguments: '{"path":"src/main.ts"}' } },
    ])
    expect(all.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool_calls' })
  })

  it('keeps parallel tool calls apart by index, in order, after the text', async () => {
    server.enqueue({
      text: 'Delegating two surveys.',
      tool_calls: [
        { id: 'call_A', name: 'task', arguments: { description: 'docs', prompt: 'Survey docs/', subagent_type: 'explore' } },
        { id: 'call_B', name: 'task', arguments: { description: 'src', prompt: 'Survey src/', subagent_type: 'explore' } },
      ],
    })
    const reply = await collectReply(provider(), request)
    expect(reply.text).toBe('Delegating two surveys.')
    expect(reply.tool_calls.map((call) => [call.id, call.name, JSON.parse(call.arguments).prompt])).toEqual([
      ['call_A', 'task', 'Survey docs/'],
      ['call_B', 'task', 'Survey src/'],
    ])
    expect(reply.finish_reason).toBe('tool_calls')
  })

  it('joins arguments that arrive in many small pieces', async () => {
    const args = JSON.stringify({ path: 'src-main/core/providers/openai.ts', start_line: 10, end_line: 200 })
    expect(split(args, 40)).toHaveLength(40)
    server.enqueue({
      tool_calls: [
        { name: 'read_file', arguments: args, pieces: 40 },
        { name: 'read_file', arguments: '{"path":"b"}', pieces: 12 },
      ],
    })
    const reply = await collectReply(provider(), request)
    expect(reply.tool_calls.map((call) => call.arguments)).toEqual([args, '{"path":"b"}'])
  })

  it('maps usage: prompt tokens include the cached ones, reasoning is part of the output; prices the call', async () => {
    server.enqueue({ text: 'done', usage: { prompt_tokens: 2000, completion_tokens: 500, cached_tokens: 1500, reasoning_tokens: 320 } })
    const reply = await collectReply(provider('gpt-5'), request)
    expect(reply.usage).toEqual({
      input_tokens: 2000,
      output_tokens: 500,
      cache_read_tokens: 1500,
      cache_write_tokens: 0,
      reasoning_tokens: 320,
    })
    // 500 uncached × $1.25 + 1500 cached × $0.125 + 500 out × $10, per million
    expect(reply.cost_usd).toBeCloseTo((500 * 1.25 + 1500 * 0.125 + 500 * 10) / 1e6, 12)
  })

  it('reads the older 2024 shape, which has no prompt_tokens_details', async () => {
    server.enqueue({ legacy: true, tool_calls: [{ name: 'task', arguments: {} }], usage: { prompt_tokens: 149, completion_tokens: 60 } })
    const reply = await collectReply(provider('gpt-4o-2024-08-06'), request)
    expect(reply.usage).toEqual({ input_tokens: 149, output_tokens: 60, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 })
    expect(reply.tool_calls).toHaveLength(1)
  })

  it('has no cost, not a zero cost, when the server sends no usage', async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    server.enqueue({ kind: 'raw', body: chunk({ role: 'assistant', content: 'hi' }) + chunk({}, 'stop') + 'data: [DONE]\n\n' })
    const reply = await collectReply(provider(), request)
    expect(reply).toMatchObject({ text: 'hi', cost_usd: null, usage: { input_tokens: 0, output_tokens: 0 } })
  })

  it('yields malformed tool-call JSON as the raw text instead of throwing', async () => {
    server.enqueue({ tool_calls: [{ name: 'read_file', arguments: '{"path": "a.ts", ' }] })
    const reply = await collectReply(provider(), request)
    expect(reply.tool_calls).toEqual([{ id: 'call_t0_0', name: 'read_file', arguments: '{"path": "a.ts", ' }])
  })

  it('translates history: assistant tool calls and tool results', async () => {
    server.enqueue({ text: 'ok' })
    await collectReply(provider(), {
      ...request,
      messages: [
        ...request.messages,
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'c1', name: 'read_file', arguments: '{"path":"a"}' },
            { id: 'c2', name: 'read_file', arguments: '{"path":"b"}' },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'A' },
        { role: 'tool', tool_call_id: 'c2', content: 'B' },
        { role: 'assistant', content: 'Both read.' },
      ],
    })
    expect((server.requests[0]?.body as { messages: unknown[] }).messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'tool', tool_call_id: 'c2', content: 'B' },
      { role: 'assistant', content: 'Both read.' },
    ])
  })
})

describe('openai errors and retries', () => {
  it('retries a 429, honouring retry-after', async () => {
    server.enqueue(openaiErrors.rateLimit(2), { text: 'after the wait' })
    const reply = await collectReply(provider(), request)
    expect(reply.text).toBe('after the wait')
    expect(server.requests).toHaveLength(2)
    expect(waits).toEqual([2000])
  })

  it('retries a 500 with backoff', async () => {
    server.enqueue(openaiErrors.server(), { text: 'recovered' })
    expect((await collectReply(provider(), request)).text).toBe('recovered')
    expect(waits).toEqual([750]) // 1 s × 2^0 × (0.5 + 0.5 / 2)
  })

  it('gives up after four attempts with the status and the API message', async () => {
    server.enqueue(openaiErrors.server(), openaiErrors.server(), openaiErrors.server(), openaiErrors.server(), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('server')
    expect(error.message).toBe(
      'openai: HTTP 500 server_error: The server had an error while processing your request. Sorry about that! (after 4 attempts)',
    )
    expect(server.requests).toHaveLength(4)
    expect(waits).toEqual([750, 1500, 3000])
  })

  it('does not retry a 401, says what to check, and never shows the key', async () => {
    server.enqueue(openaiErrors.auth(`Incorrect API key provided: ${apiKey}.`), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('auth')
    expect(error.message).toContain('openai: HTTP 401 invalid_api_key: Incorrect API key provided')
    expect(error.message).toContain('OPENAI_API_KEY')
    expect(error.message).not.toContain(apiKey)
    expect(error.message).not.toContain('0123456789abcdef')
    expect(JSON.stringify(error.cause ?? null)).not.toContain(apiKey)
    expect(server.requests).toHaveLength(1)
  })

  it('turns a context-length 400 into context_length without retrying', async () => {
    server.enqueue(openaiErrors.contextLength(), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('context_length')
    expect(error.message).toContain('maximum context length is 128000 tokens')
    expect(server.requests).toHaveLength(1)
  })

  it('retries an error event in the stream when nothing was yielded yet', async () => {
    server.enqueue(
      { kind: 'stream_error', error: { message: 'The server had an error while processing your request.' } },
      { text: 'second try' },
    )
    expect((await collectReply(provider(), request)).text).toBe('second try')
    expect(server.requests).toHaveLength(2)
  })

  it('does not retry once part of the reply has streamed', async () => {
    server.enqueue({ kind: 'stream_error', text: 'Half a', error: { message: 'The server had an error.' } }, { text: 'never' })
    const seen: string[] = []
    const error = await failure(collectReply(provider(), request, (text) => seen.push(text)))
    expect(seen.join('')).toBe('Half a')
    expect(error.code).toBe('server')
    expect(error.message).toContain('after part of the reply had streamed')
    expect(server.requests).toHaveLength(1)
  })

  it('retries a connection cut before the reply finished', async () => {
    server.enqueue({ kind: 'disconnect' }, { text: 'reconnected' })
    expect((await collectReply(provider(), request)).text).toBe('reconnected')
    expect(server.requests).toHaveLength(2)
  })

  it('aborts a stalled stream when the signal fires', async () => {
    server.enqueue({ kind: 'hang', text: 'Thinking' })
    const stop = new AbortController()
    const pending = collectReply(provider(), { ...request, signal: stop.signal }, () => stop.abort('killed'))
    const error = await failure(pending)
    expect(error.code).toBe('aborted')
    expect(server.requests).toHaveLength(1)
  })
})
