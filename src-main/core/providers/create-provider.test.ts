import { afterEach, describe, expect, it } from 'vitest'
import { collectReply } from './collect'
import { isLocalURL, localPlaceholderKey } from './connection'
import { createProvider } from './create-provider'
import { ProviderError } from './errors'
import { startFakeAnthropic } from './testing/fake-anthropic'
import type { FakeServer } from './testing/fake-http'
import { startFakeOpenAI } from './testing/fake-openai'
import type { ProviderRequest } from './types'

const request: ProviderRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] }
const sleep = async () => {}
const servers: Array<FakeServer<unknown>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('createProvider for the HTTP providers', () => {
  it('fails the first call with a clear auth error when no key is set for the public API', async () => {
    for (const kind of ['openai', 'anthropic'] as const) {
      const provider = createProvider({ kind, model: 'm', base_url: null }, { sleep, env: {} })
      expect(provider).toMatchObject({ kind, model: 'm' })
      const error = await collectReply(provider, request).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error).toMatchObject({ code: 'auth', message: expect.stringContaining(`${kind.toUpperCase()}_API_KEY`) })
    }
  })

  it('talks to a local OpenAI-compatible server without a key, using a placeholder', async () => {
    const server = await startFakeOpenAI({ queue: [{ text: 'local hello' }] })
    servers.push(server as FakeServer<unknown>)
    const provider = createProvider({ kind: 'openai', model: 'llama3.1:8b', base_url: `${server.url}/v1` }, { sleep, env: {} })
    const reply = await collectReply(provider, request)
    expect(reply).toMatchObject({ text: 'local hello', cost_usd: null })
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${localPlaceholderKey}`)
  })

  it('reads the key and base URL from the environment', async () => {
    const server = await startFakeAnthropic({ queue: [{ text: 'env hello' }] })
    servers.push(server as FakeServer<unknown>)
    const env = { ANTHROPIC_API_KEY: 'sk-ant-from-env-0000', ANTHROPIC_BASE_URL: server.url }
    const provider = createProvider({ kind: 'anthropic', model: 'claude-haiku-4-5', base_url: null }, { sleep, env })
    expect((await collectReply(provider, request)).text).toBe('env hello')
    expect(JSON.stringify(server.requests[0]?.headers)).toContain('sk-ant-from-env-0000')
  })

  it('prefers the configured base URL over the environment one', async () => {
    const server = await startFakeOpenAI({ queue: [{ text: 'configured' }] })
    servers.push(server as FakeServer<unknown>)
    const env = { OPENAI_API_KEY: 'sk-from-env-00000000', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }
    const provider = createProvider({ kind: 'openai', model: 'gpt-4o', base_url: `${server.url}/v1` }, { sleep, env })
    expect((await collectReply(provider, request)).text).toBe('configured')
  })

  it('hands the timeouts to the HTTP providers', async () => {
    for (const kind of ['openai', 'anthropic'] as const) {
      const route = () => ({ kind: 'no_answer' }) as const
      const server = kind === 'openai' ? await startFakeOpenAI({ route }) : await startFakeAnthropic({ route })
      servers.push(server as FakeServer<unknown>)
      const base_url = kind === 'openai' ? `${server.url}/v1` : server.url
      const provider = createProvider({ kind, model: 'm', base_url }, { sleep, env: {}, timeouts: { first_output_ms: 50 } })
      const error = await collectReply(provider, request).catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'timeout', message: `${kind}: no reply within 50 ms (after 4 attempts)` })
    }
  })

  it('knows which base URLs are on this machine', () => {
    expect(['http://localhost:11434/v1', 'http://127.0.0.1:8000', 'http://[::1]:1234/v1', 'http://api.localhost/'].every(isLocalURL)).toBe(
      true,
    )
    expect(['https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'not a url'].some(isLocalURL)).toBe(false)
  })
})
