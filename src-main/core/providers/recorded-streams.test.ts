import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAnthropicProvider } from './anthropic'
import { collectReply, type ModelReply } from './collect'
import { createOpenAIProvider } from './openai'
import { startFakeAnthropic, type FakeAnthropicReply, type FakeAnthropicResponse } from './testing/fake-anthropic'
import type { FakeServer } from './testing/fake-http'
import { startFakeOpenAI, type FakeOpenAIReply, type FakeOpenAIResponse } from './testing/fake-openai'
import type { ProviderRequest } from './types'

/**
 * Real API response bodies recorded by other projects (../shared/fixtures/README.md), and the
 * same replies built by the fake servers. The fake-built cases always run; the recorded files
 * live beside the repository, not in it, so the cases that serve them byte for byte (and compare
 * the fakes' chunk shapes with them) are skipped in a fresh clone.
 */
const fixtures = fileURLToPath(new URL('../../../../shared/fixtures/', import.meta.url))
const present = existsSync(fixtures)
const read = (name: string): string => readFileSync(`${fixtures}${name}`, 'utf8')

const request: ProviderRequest = { messages: [{ role: 'user', content: 'Add and multiply 2 and 3.' }], tools: [] }
const sleep = async () => {}
const calls = (reply: ModelReply) => reply.tool_calls.map((call) => [call.id, call.name, JSON.parse(call.arguments)])
const noCache = { cache_read_tokens: 0, cache_write_tokens: 0 }

interface Case<R> {
  file: string
  model: string
  /** The recorded reply, rebuilt with the fake server. */
  fake: R
  check: (reply: ModelReply) => void
}

const openaiCases: Array<Case<FakeOpenAIReply>> = [
  {
    file: 'openai-stream-gpt5-parallel-tools-reasoning.txt',
    model: 'gpt-5',
    fake: {
      model: 'gpt-5-2025-08-07',
      tool_calls: [
        { id: 'call_8ElDxJj6u7IUDEwQIrwFbveM', name: 'add', arguments: '{"a": 2, "b": 3}', pieces: 4 },
        { id: 'call_HEZOX3JzspqFubADMNdWn12E', name: 'multiply', arguments: '{"a": 2, "b": 3}', pieces: 4 },
      ],
      usage: { prompt_tokens: 190, completion_tokens: 379, reasoning_tokens: 320 },
    },
    check: (reply) => {
      expect(calls(reply)).toEqual([
        ['call_8ElDxJj6u7IUDEwQIrwFbveM', 'add', { a: 2, b: 3 }],
        ['call_HEZOX3JzspqFubADMNdWn12E', 'multiply', { a: 2, b: 3 }],
      ])
      expect(reply.usage).toEqual({ input_tokens: 190, output_tokens: 379, reasoning_tokens: 320, ...noCache })
      expect(reply.finish_reason).toBe('tool_calls')
      expect(reply.cost_usd).toBeCloseTo((190 * 1.25 + 379 * 10) / 1e6, 12)
    },
  },
  {
    file: 'openai-stream-gpt4o-parallel-tools-obfuscation.txt',
    model: 'gpt-4o',
    fake: {
      model: 'gpt-4o-2024-08-06',
      tool_calls: [
        { id: 'call_q2UyBRP7eXNTzAoR8lEhjc9Z', name: 'get_country', arguments: '{}', pieces: 1 },
        { id: 'call_b51ijcpFkDiTQG1bQzsrmtW5', name: 'get_product_name', arguments: '{}', pieces: 1 },
      ],
      usage: { prompt_tokens: 364, completion_tokens: 40 },
    },
    check: (reply) => {
      expect(calls(reply).map(([, name, args]) => [name, args])).toEqual([
        ['get_country', {}],
        ['get_product_name', {}],
      ])
      expect(reply.usage).toEqual({ input_tokens: 364, output_tokens: 40, reasoning_tokens: 0, ...noCache })
    },
  },
  {
    file: 'openai-stream-gpt4o-2024-parallel-tools.txt',
    model: 'gpt-4o',
    fake: {
      legacy: true,
      model: 'gpt-4o-2024-08-06',
      tool_calls: [
        { name: 'GetWeatherArgs', arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}', pieces: 11 },
        { name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}', pieces: 9 },
      ],
      usage: { prompt_tokens: 149, completion_tokens: 60 },
    },
    check: (reply) => {
      expect(calls(reply).map(([, name, args]) => [name, args])).toEqual([
        ['GetWeatherArgs', { city: 'Edinburgh', country: 'GB', units: 'c' }],
        ['get_stock_price', { ticker: 'AAPL', exchange: 'NASDAQ' }],
      ])
      expect(reply.usage).toEqual({ input_tokens: 149, output_tokens: 60, reasoning_tokens: 0, ...noCache })
    },
  },
]

const anthropicCases: Array<Case<FakeAnthropicReply>> = [
  {
    file: 'anthropic-stream-sonnet4-text-parallel-tool-use.txt',
    model: 'claude-sonnet-4-20250514',
    fake: {
      text: ["I'll add and", ' multiply the numbers', ' 2 and 3 for', ' you.'],
      tool_calls: [
        { id: 'toolu_01UYxUYC2zRPY8wiutnF48eP', name: 'add', arguments: '{"a": 2, "b": 3}', pieces: 3 },
        { id: 'toolu_01VaRx1jpWCvPhi7L4kywAcd', name: 'multiply', arguments: '{"a": 2, "b": 3}', pieces: 3 },
      ],
      usage: { input_tokens: 502, output_tokens: 137 },
    },
    check: (reply) => {
      expect(reply.text).toBe("I'll add and multiply the numbers 2 and 3 for you.")
      expect(calls(reply)).toEqual([
        ['toolu_01UYxUYC2zRPY8wiutnF48eP', 'add', { a: 2, b: 3 }],
        ['toolu_01VaRx1jpWCvPhi7L4kywAcd', 'multiply', { a: 2, b: 3 }],
      ])
      expect(reply.usage).toEqual({ input_tokens: 502, output_tokens: 137, reasoning_tokens: 0, ...noCache })
      expect(reply.cost_usd).toBeCloseTo((502 * 3 + 137 * 15) / 1e6, 12)
    },
  },
  {
    file: 'anthropic-stream-haiku45-thinking-tool-use.txt',
    model: 'claude-haiku-4-5-20251001',
    fake: {
      thinking: 'The user wants me to use the fixed_version tool.',
      tool_calls: [{ id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', arguments: '' }],
      usage: { input_tokens: 598, output_tokens: 92, thinking_tokens: 53 },
    },
    check: (reply) => {
      expect(reply.text).toBe('')
      expect(reply.tool_calls).toEqual([{ id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', arguments: '{}' }])
      expect(reply.usage).toEqual({ input_tokens: 598, output_tokens: 92, reasoning_tokens: 53, ...noCache })
      expect(reply.finish_reason).toBe('tool_calls')
    },
  },
]

let openai: FakeServer<FakeOpenAIResponse>
let anthropic: FakeServer<FakeAnthropicResponse>
beforeAll(async () => {
  openai = await startFakeOpenAI()
  anthropic = await startFakeAnthropic()
})
afterAll(async () => {
  await openai.close()
  await anthropic.close()
})

function viaOpenAI(response: FakeOpenAIResponse, model: string): Promise<ModelReply> {
  openai.enqueue(response)
  return collectReply(createOpenAIProvider({ model, apiKey: 'sk-test', baseURL: `${openai.url}/v1`, sleep }), request)
}
function viaAnthropic(response: FakeAnthropicResponse, model: string): Promise<ModelReply> {
  anthropic.enqueue(response)
  return collectReply(createAnthropicProvider({ model, apiKey: 'sk-ant-test', baseURL: anthropic.url, sleep }), request)
}

describe('the recorded replies, rebuilt by the fake servers', () => {
  for (const { file, model, fake, check } of openaiCases) it(`openai: ${file}`, async () => check(await viaOpenAI(fake, model)))
  for (const { file, model, fake, check } of anthropicCases) it(`anthropic: ${file}`, async () => check(await viaAnthropic(fake, model)))
})

describe.skipIf(!present)('the recorded streams, served verbatim (skipped: ../shared/fixtures is not beside this checkout)', () => {
  for (const { file, model, check } of openaiCases)
    it(`openai: ${file}`, async () => check(await viaOpenAI({ kind: 'raw', body: read(file) }, model)))
  for (const { file, model, check } of anthropicCases)
    it(`anthropic: ${file}`, async () => check(await viaAnthropic({ kind: 'raw', body: read(file) }, model)))

  /** Keys and value types, recursively, with keys sorted: what a parser depends on. */
  const skeleton = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(skeleton)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, skeleton((value as Record<string, unknown>)[key])]),
          )
        : value === null
          ? null
          : typeof value
  /** `event` lines and the skeleton of each `data` line, in order. */
  const shapes = (body: string) =>
    body
      .split('\n')
      .filter((line) => line.startsWith('data: ') || line.startsWith('event: '))
      .map((line) => (line.startsWith('event: ') || line === 'data: [DONE]' ? line : skeleton(JSON.parse(line.slice(6)))))
  async function fakeBody(server: FakeServer<unknown>, path: string, response: unknown, body: object): Promise<string> {
    server.enqueue(response)
    const answer = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return answer.text()
  }

  it('the fake OpenAI server sends chunks shaped like the recorded ones', async () => {
    // The gpt-5 recording has no `logprobs` keys; the fake follows the gpt-4o recordings, which do.
    for (const { file, fake } of openaiCases.slice(1)) {
      const body = await fakeBody(openai as FakeServer<unknown>, '/v1/chat/completions', fake, {
        model: 'gpt-4o',
        messages: [],
        stream: true,
        stream_options: { include_usage: true },
      })
      expect(shapes(body), file).toEqual(shapes(read(file)))
    }
  })

  it('the fake Anthropic server sends events shaped like the recorded ones', async () => {
    const [{ file, fake }] = anthropicCases as [Case<FakeAnthropicReply>]
    const body = await fakeBody(anthropic as FakeServer<unknown>, '/v1/messages', fake, {
      model: 'claude-sonnet-4-20250514',
      messages: [],
      max_tokens: 10,
      stream: true,
    })
    expect(shapes(body)).toEqual(shapes(read(file)))
  })
})
