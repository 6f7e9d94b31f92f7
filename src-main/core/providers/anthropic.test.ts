import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAnthropicProvider } from './anthropic'
import { collectReply } from './collect'
import { anthropicErrors, startFakeAnthropic, type FakeAnthropicResponse } from './testing/fake-anthropic'
import type { FakeServer } from './testing/fake-http'
import type { ProviderEvent, ProviderRequest } from './types'
import { failure } from './testing/failure'

const apiKey = 'sk-ant-api03-test0123456789SECRET'
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

let server: FakeServer<FakeAnthropicResponse>
let waits: number[]
beforeEach(async () => {
  server = await startFakeAnthropic()
  waits = []
})
afterEach(() => server.close())

const provider = (model = 'claude-sonnet-4-20250514', baseURL = server.url) =>
  createAnthropicProvider({ model, apiKey, baseURL, random: () => 0.5, sleep: async (ms) => void waits.push(ms) })

async function events(iterable: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const all: ProviderEvent[] = []
  for await (const event of iterable) all.push(event)
  return all
}

describe('the anthropic provider against a fake Messages server', () => {
  it('streams text and sends a cached system prompt, cached tools and max_tokens to /v1/messages', async () => {
    server.enqueue({ text: 'I will look around first.' })
    const all = await events(provider().stream(request))
    const deltas = all.filter((event) => event.type === 'text_delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.map((event) => event.text).join('')).toBe('I will look around first.')
    expect(all.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop', response: { id: 'msg_fake1', model: expect.any(String) } })

    const [sent] = server.requests
    expect(sent?.path).toBe('/v1/messages')
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 8192,
      stream: true,
      system: [{ type: 'text', text: 'You are the root agent.', cache_control: { type: 'ephemeral' } }],
      tools: [
        { name: 'read_file', description: 'Read a file', input_schema: request.tools[0]?.parameters },
        { name: 'task', description: 'Delegate', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Survey the repository.', cache_control: { type: 'ephemeral' } }] }],
    })
  })

  it('accepts a base URL ending in /v1 (the SDK adds its own)', async () => {
    server.enqueue({ text: 'ok' })
    expect((await collectReply(provider(undefined, `${server.url}/v1`), request)).text).toBe('ok')
    expect(server.requests[0]?.path).toBe('/v1/messages')
  })

  it('yields one whole tool call', async () => {
    server.enqueue({ tool_calls: [{ name: 'read_file', arguments: { path: 'src/main.ts' } }] })
    const all = await events(provider().stream(request))
    expect(all.filter((event) => event.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'toolu_t0_0', name: 'read_file', arguments: '{"path":"src/main.ts"}' } },
    ])
    expect(all.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool_calls' })
  })

  it('keeps parallel tool_use blocks apart, after the text block', async () => {
    server.enqueue({
      text: 'Delegating two surveys.',
      tool_calls: [
        { name: 'task', arguments: { description: 'docs', prompt: 'Survey docs/', subagent_type: 'explore' } },
        { name: 'task', arguments: { description: 'src', prompt: 'Survey src/', subagent_type: 'explore' } },
      ],
    })
    const reply = await collectReply(provider(), request)
    expect(reply.text).toBe('Delegating two surveys.')
    expect(reply.tool_calls.map((call) => [call.id, call.name, JSON.parse(call.arguments).prompt])).toEqual([
      ['toolu_t0_0', 'task', 'Survey docs/'],
      ['toolu_t0_1', 'task', 'Survey src/'],
    ])
  })

  it('joins input_json_delta pieces, and gives a tool without arguments {}', async () => {
    const args = JSON.stringify({ path: 'src-main/core/providers/anthropic.ts', start_line: 10, end_line: 200 })
    server.enqueue({
      tool_calls: [
        { name: 'read_file', arguments: args, pieces: 40 },
        { name: 'list_files', arguments: '' },
      ],
    })
    const reply = await collectReply(provider(), request)
    expect(reply.tool_calls.map((call) => call.arguments)).toEqual([args, '{}'])
  })

  it('skips a thinking block (text and signature) without losing the reply', async () => {
    server.enqueue({
      thinking: 'The user wants a survey. Let me call the tool.',
      text: 'Calling it.',
      tool_calls: [{ name: 'task', arguments: {} }],
    })
    const reply = await collectReply(provider('claude-haiku-4-5-20251001'), request)
    expect(reply.text).toBe('Calling it.')
    expect(reply.tool_calls).toHaveLength(1)
    expect(reply.usage.reasoning_tokens).toBeGreaterThan(0)
  })

  it('counts cache reads and writes as input, and prices each part', async () => {
    server.enqueue({
      text: 'done',
      usage: { input_tokens: 100, cache_creation_input_tokens: 2000, cache_read_input_tokens: 30_000, output_tokens: 400 },
    })
    const reply = await collectReply(provider(), request)
    expect(reply.usage).toEqual({
      input_tokens: 32_100,
      output_tokens: 400,
      cache_read_tokens: 30_000,
      cache_write_tokens: 2000,
      reasoning_tokens: 0,
    })
    // claude-sonnet-4: $3 in, $0.30 cache read, $3.75 cache write, $15 out, per million
    expect(reply.cost_usd).toBeCloseTo((100 * 3 + 30_000 * 0.3 + 2000 * 3.75 + 400 * 15) / 1e6, 12)
  })

  it('yields malformed tool input as the raw text instead of throwing', async () => {
    server.enqueue({ tool_calls: [{ name: 'read_file', arguments: '{"path": "a.ts", ' }] })
    const reply = await collectReply(provider(), request)
    expect(reply.tool_calls).toEqual([{ id: 'toolu_t0_0', name: 'read_file', arguments: '{"path": "a.ts", ' }])
  })

  it('translates history: tool_use blocks, consecutive results in one user message, then the text after', async () => {
    server.enqueue({ text: 'ok' })
    await collectReply(provider(), {
      ...request,
      messages: [
        ...request.messages,
        {
          role: 'assistant',
          content: 'Reading both.',
          tool_calls: [
            { id: 'c1', name: 'read_file', arguments: '{"path":"a"}' },
            { id: 'c2', name: 'read_file', arguments: 'not json' },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'A' },
        { role: 'tool', tool_call_id: 'c2', content: 'error: arguments are not JSON' },
        { role: 'user', content: 'Budget: half used.' },
      ],
    })
    expect((server.requests[0]?.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Survey the repository.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'c2', name: 'read_file', input: { invalid_json: 'not json' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'A' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'error: arguments are not JSON' },
          { type: 'text', text: 'Budget: half used.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ])
  })
})

describe('anthropic errors and retries', () => {
  it('retries a 429, honouring retry-after', async () => {
    server.enqueue(anthropicErrors.rateLimit(3), { text: 'after the wait' })
    expect((await collectReply(provider(), request)).text).toBe('after the wait')
    expect(server.requests).toHaveLength(2)
    expect(waits).toEqual([3000])
  })

  it('retries a 500 with backoff', async () => {
    server.enqueue(anthropicErrors.server(), { text: 'recovered' })
    expect((await collectReply(provider(), request)).text).toBe('recovered')
    expect(waits).toEqual([750])
  })

  it('gives up on a 529 after four attempts, naming the provider, status and message', async () => {
    server.enqueue(...Array.from({ length: 4 }, anthropicErrors.overloaded), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('server')
    expect(error.message).toBe('anthropic: HTTP 529 overloaded_error: Overloaded (after 4 attempts)')
    expect(waits).toEqual([750, 1500, 3000])
  })

  it('does not retry a 401, says what to check, and never shows the key', async () => {
    server.enqueue(anthropicErrors.auth(`invalid x-api-key ${apiKey}`), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('auth')
    expect(error.message).toContain('anthropic: HTTP 401 authentication_error: invalid x-api-key')
    expect(error.message).toContain('ANTHROPIC_API_KEY')
    expect(error.message).not.toContain(apiKey)
    expect(error.message).not.toContain('test0123456789')
    expect(server.requests).toHaveLength(1)
  })

  it('turns "prompt is too long" into context_length without retrying', async () => {
    server.enqueue(anthropicErrors.contextLength(), { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.code).toBe('context_length')
    expect(error.message).toContain('prompt is too long')
    expect(server.requests).toHaveLength(1)
  })

  it('retries an overloaded_error event in the stream when nothing was yielded yet', async () => {
    server.enqueue({ kind: 'stream_error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { text: 'second try' })
    expect((await collectReply(provider(), request)).text).toBe('second try')
    expect(server.requests).toHaveLength(2)
  })

  it('does not retry once part of the reply has streamed', async () => {
    server.enqueue({ kind: 'stream_error', text: 'Half a', error: { type: 'overloaded_error', message: 'Overloaded' } }, { text: 'never' })
    const error = await failure(collectReply(provider(), request))
    expect(error.message).toBe('anthropic: overloaded_error: Overloaded (after part of the reply had streamed)')
    expect(server.requests).toHaveLength(1)
  })

  it('retries a connection cut before message_stop', async () => {
    server.enqueue({ kind: 'disconnect' }, { text: 'reconnected' })
    expect((await collectReply(provider(), request)).text).toBe('reconnected')
    expect(server.requests).toHaveLength(2)
  })

  it('aborts a stalled stream when the signal fires', async () => {
    server.enqueue({ kind: 'hang', text: 'Thinking' })
    const stop = new AbortController()
    const error = await failure(collectReply(provider(), { ...request, signal: stop.signal }, () => stop.abort('killed')))
    expect(error.code).toBe('aborted')
  })
})
