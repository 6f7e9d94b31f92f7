import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { makeInit, runScripted } from '../agent/testing'
import { createAnthropicProvider } from './anthropic'
import { collectReply } from './collect'
import { createOpenAIProvider } from './openai'
import type { StreamTimeouts } from './stream-watchdog'
import { anthropicErrors, startFakeAnthropic, type FakeToolCall, type FaultyEnding } from './testing/fake-anthropic'
import { proxyErrorPage, type CommonResponse, type FakeServer, type RetryAfter } from './testing/fake-http'
import { openaiErrors, startFakeOpenAI } from './testing/fake-openai'
import type { Provider, ProviderRequest } from './types'
import { failure } from './testing/failure'

/**
 * Faults, for both HTTP providers, with the real SDKs against the local fakes: 429 storms, 5xx
 * storms, servers that go silent before or during a reply, and answers that are not the API's
 * stream. Each ends as a ProviderError that says what happened, or as a reply after retries;
 * none hangs or escapes as another exception. Backoff goes to a recording sleep; timeouts are
 * real but half a second.
 */

/** What both fakes answer: the scripted responses these tests use. */
type Scripted =
  | CommonResponse
  | { text?: string | string[]; tool_calls?: FakeToolCall[]; frame_delay_ms?: number }
  | { kind: FaultyEnding; text?: string; tool_calls?: FakeToolCall[] }

interface Subject {
  kind: 'openai' | 'anthropic'
  start: () => Promise<FakeServer<Scripted>>
  make: (server: FakeServer<Scripted>, options: { timeouts?: Partial<StreamTimeouts>; sleep: (ms: number) => Promise<void> }) => Provider
  rateLimit: (after?: RetryAfter | number) => CommonResponse
  /** The words after `HTTP 429 ` in the final error. */
  rateLimitDetail: string
  /** Each retryable 5xx the API sends, and the words after its status in the final error. */
  serverErrors: Array<[status: number, response: () => CommonResponse, detail: string]>
  /** What the "stream ended early" error says is missing once the stream has begun. */
  missing: string
}

const subjects: Subject[] = [
  {
    kind: 'openai',
    start: () => startFakeOpenAI(),
    make: (server, options) =>
      createOpenAIProvider({
        model: 'gpt-4o',
        apiKey: 'sk-test-faults-000000',
        baseURL: `${server.url}/v1`,
        random: () => 0.5,
        ...options,
      }),
    rateLimit: openaiErrors.rateLimit,
    rateLimitDetail: 'rate_limit_exceeded: Rate limit reached for gpt-4o on requests per min (RPM): Limit 500, Used 500.',
    serverErrors: [
      [500, openaiErrors.server, 'server_error: The server had an error while processing your request. Sorry about that!'],
      [502, openaiErrors.badGateway, 'server_error: Bad gateway.'],
      [503, openaiErrors.overloaded, 'server_error: The engine is currently overloaded, please try again later.'],
    ],
    missing: 'no finish_reason',
  },
  {
    kind: 'anthropic',
    start: () => startFakeAnthropic(),
    make: (server, options) =>
      createAnthropicProvider({
        model: 'claude-sonnet-4-20250514',
        apiKey: 'sk-ant-test-faults-0000',
        baseURL: server.url,
        random: () => 0.5,
        ...options,
      }),
    rateLimit: anthropicErrors.rateLimit,
    rateLimitDetail: 'rate_limit_error: This request would exceed the rate limit for your organization of 50 requests per minute.',
    serverErrors: [
      [500, anthropicErrors.server, 'api_error: Internal server error'],
      [502, anthropicErrors.badGateway, 'api_error: Bad gateway'],
      [503, anthropicErrors.unavailable, 'api_error: Service unavailable'],
      [529, anthropicErrors.overloaded, 'overloaded_error: Overloaded'],
    ],
    missing: 'no stop_reason',
  },
]

const request: ProviderRequest = {
  messages: [{ role: 'user', content: 'Survey the repository.' }],
  tools: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
}
/** For the tests of silence only: long enough that a loaded machine still answers in time. */
const short: StreamTimeouts = { first_output_ms: 500, idle_ms: 500 }
const times = <T>(count: number, make: () => T): T[] => Array.from({ length: count }, make)

describe.each(subjects)('$kind survives faults', (subject) => {
  let server: FakeServer<Scripted>
  let waits: number[]
  const sleep = async (ms: number) => void waits.push(ms)
  const provider = (timeouts?: Partial<StreamTimeouts>) => subject.make(server, { timeouts, sleep })
  const prefix = `${subject.kind}: `
  beforeEach(async () => {
    server = await subject.start()
    waits = []
  })
  afterEach(() => server.close())

  describe('a 429 storm', () => {
    it('is retried with backoff, each attempt one request, then fails as rate_limit naming the provider and the attempts', async () => {
      server.enqueue(...times(4, () => subject.rateLimit()), { text: 'never' })
      const error = await failure(collectReply(provider(), request))
      expect(error).toMatchObject({ code: 'rate_limit', status: 429 })
      expect(error.message).toBe(`${prefix}HTTP 429 ${subject.rateLimitDetail} (after 4 attempts)`)
      expect(server.requests).toHaveLength(4) // the SDK's own retries are off
      expect(waits).toEqual([750, 1500, 3000])
    })

    it('waits as long as retry-after says', async () => {
      server.enqueue(...times(4, () => subject.rateLimit(2)))
      expect((await failure(collectReply(provider(), request))).code).toBe('rate_limit')
      expect(waits).toEqual([2000, 2000, 2000])
    })

    it('prefers retry-after-ms to retry-after', async () => {
      server.enqueue(...times(3, () => subject.rateLimit({ seconds: 9, ms: 250 })), { text: 'through' })
      expect((await collectReply(provider(), request)).text).toBe('through')
      expect(waits).toEqual([250, 250, 250])
    })

    it('caps a long retry-after at a minute', async () => {
      server.enqueue(subject.rateLimit(3600), { text: 'through' })
      expect((await collectReply(provider(), request)).text).toBe('through')
      expect(waits).toEqual([60_000])
    })
  })

  it.each(subject.serverErrors)('retries a %i, then says what the API said', async (status, response, detail) => {
    server.enqueue(response(), { text: 'recovered' })
    expect((await collectReply(provider(), request)).text).toBe('recovered')
    server.enqueue(...times(4, response))
    const error = await failure(collectReply(provider(), request))
    expect(error).toMatchObject({ code: 'server', status })
    expect(error.message).toBe(`${prefix}HTTP ${status} ${detail} (after 4 attempts)`)
    expect(server.requests).toHaveLength(2 + 4)
  })

  it("names a proxy's HTML 502 page by its title instead of quoting the page", async () => {
    server.enqueue(...times(4, () => proxyErrorPage(502)))
    const error = await failure(collectReply(provider(), request))
    expect(error).toMatchObject({
      code: 'server',
      status: 502,
      message: `${prefix}HTTP 502 HTML page "502 Bad Gateway" (after 4 attempts)`,
    })
  })

  describe('a server that goes silent', () => {
    it('times out when it never sends headers, and is retried', async () => {
      server.enqueue({ kind: 'no_answer' }, { text: 'second try' })
      expect((await collectReply(provider(short), request)).text).toBe('second try')
      expect(server.requests).toHaveLength(2)
      expect(server.requests[0]?.finished_at).not.toBeNull() // the stalled request was cut
      expect(waits).toEqual([750])
    })

    it('fails as timeout after the attempts', async () => {
      server.enqueue(...times(4, (): Scripted => ({ kind: 'no_answer' })))
      const started = Date.now()
      const error = await failure(collectReply(provider(short), request))
      expect(error).toMatchObject({ code: 'timeout', message: `${prefix}no reply within 500 ms (after 4 attempts)` })
      expect(Date.now() - started).toBeLessThan(5000)
    })

    it('times out when it stalls after the first chunk, before any of the reply, and is retried', async () => {
      server.enqueue({ kind: 'hang' }, { text: 'second try' })
      expect((await collectReply(provider(short), request)).text).toBe('second try')
      expect(server.requests).toHaveLength(2)
    })

    it('does not retry a stall once text has streamed: the agent already saw it', async () => {
      server.enqueue({ kind: 'hang', text: 'Half of' }, { text: 'never' })
      const seen: string[] = []
      const error = await failure(collectReply(provider(short), request, (text) => seen.push(text)))
      expect(seen.join('')).toBe('Half of')
      expect(error).toMatchObject({
        code: 'timeout',
        message: `${prefix}the stream stalled: nothing for 500 ms (after part of the reply had streamed)`,
      })
      expect(server.requests).toHaveLength(1)
    })

    it('retries a stall in the middle of a tool call, which the agent has not seen', async () => {
      const call = { name: 'read_file', arguments: { path: 'src-main/core/providers/openai.ts' }, pieces: 6 }
      server.enqueue({ kind: 'hang', tool_calls: [call] }, { tool_calls: [call] })
      const reply = await collectReply(provider(short), request)
      expect(reply.tool_calls.map((made) => JSON.parse(made.arguments))).toEqual([call.arguments])
      expect(server.requests).toHaveLength(2)
    })

    it('lets a slow but steady stream finish: the idle clock restarts with each chunk', async () => {
      // 100 ms between frames, so at most 200 ms between the chunks the SDK hands on (it drops pings and [DONE]).
      server.enqueue({ text: ['one ', 'two ', 'three ', 'four ', 'five'], frame_delay_ms: 100 })
      const started = Date.now()
      expect((await collectReply(provider(short), request)).text).toBe('one two three four five')
      expect(Date.now() - started).toBeGreaterThan(short.idle_ms * 1.5)
      expect(server.requests).toHaveLength(1)
    })

    it('does not count the time the consumer takes over each event', async () => {
      server.enqueue({ text: ['one ', 'two ', 'three'] })
      const texts: string[] = []
      for await (const event of provider(short).stream(request)) {
        if (event.type === 'text_delta') texts.push(event.text)
        await delay(short.idle_ms + 100)
      }
      expect(texts.join('')).toBe('one two three')
    })

    it('still aborts at once when the signal fires', async () => {
      server.enqueue({ kind: 'no_answer' })
      const stop = new AbortController()
      const pending = failure(collectReply(provider(), { ...request, signal: stop.signal }))
      await vi.waitFor(() => expect(server.requests).toHaveLength(1))
      const aborted = Date.now()
      stop.abort('killed')
      expect((await pending).code).toBe('aborted')
      expect(Date.now() - aborted).toBeLessThan(1000)
      expect(server.requests).toHaveLength(1)
    })
  })

  describe('an answer that is not the API stream', () => {
    it('turns an event that is not JSON into bad_response, without retrying', async () => {
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {}) // the SDK logs the line it could not parse
      try {
        server.enqueue({ kind: 'garbled' }, { text: 'never' })
        const error = await failure(collectReply(provider(), request))
        expect(error.code).toBe('bad_response')
        expect(error.message).toMatch(new RegExp(`^${prefix}an event in the stream is not JSON \\(.+\\)$`))
        expect(server.requests).toHaveLength(1)
      } finally {
        quiet.mockRestore()
      }
    })

    it('retries a stream that ends cleanly before its finish, while nothing was yielded', async () => {
      server.enqueue({ kind: 'truncate' }, { text: 'whole' })
      expect((await collectReply(provider(), request)).text).toBe('whole')
      expect(server.requests).toHaveLength(2)
    })

    it('says the reply is incomplete when a stream ends early after text', async () => {
      server.enqueue({ kind: 'truncate', text: 'Half of' }, { text: 'never' })
      const error = await failure(collectReply(provider(), request))
      expect(error).toMatchObject({
        code: 'network',
        message: `${prefix}the stream ended before the reply was complete (${subject.missing}) (after part of the reply had streamed)`,
      })
    })

    it('turns an HTML page with 200 into bad_response naming the page, without retrying', async () => {
      const page =
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign in · Corporate Proxy</title></head><body><form>…</form></body></html>'
      server.enqueue({ kind: 'raw', status: 200, content_type: 'text/html; charset=utf-8', body: page }, { text: 'never' })
      const error = await failure(collectReply(provider(), request))
      expect(error).toMatchObject({
        code: 'bad_response',
        status: 200,
        message: `${prefix}HTTP 200 text/html instead of an event stream: HTML page "Sign in · Corporate Proxy" (check the base URL)`,
      })
      expect(server.requests).toHaveLength(1)
    })

    it('turns a JSON body where a stream was asked for into bad_response, with its error message', async () => {
      const body = JSON.stringify({ error: { message: 'model "gpt-9" not found' } })
      server.enqueue({ kind: 'raw', status: 200, content_type: 'application/json', body })
      const error = await failure(collectReply(provider(), request))
      expect(error.code).toBe('bad_response')
      expect(error.message).toBe(
        `${prefix}HTTP 200 application/json instead of an event stream: model "gpt-9" not found (check the base URL)`,
      )
    })

    // That the adapters pass such arguments on as text is in openai.test.ts and anthropic.test.ts.
    it('lets the agent loop answer tool arguments that are not JSON with the tool error, and carry on', async () => {
      const project = await mkdtemp(join(tmpdir(), 'arbor-faults-'))
      try {
        await writeFile(join(project, 'notes.txt'), 'alpha\n')
        server.enqueue(
          { tool_calls: [{ name: 'read_file', arguments: '{"path": "notes.txt", ' }] },
          { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'retried the read' } }] },
        )
        const { outcome, requests } = await runScripted(makeInit(project, []), { provider: provider() })
        expect(outcome).toMatchObject({ status: 'completed', result: 'retried the read' })
        expect(requests).toHaveLength(2)
        expect(JSON.stringify(server.requests[1]?.body)).toContain('Error: the arguments of read_file are not valid JSON')
      } finally {
        await rm(project, { recursive: true, force: true })
      }
    })
  })
})
