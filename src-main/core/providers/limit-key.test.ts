import { describe, expect, it } from 'vitest'
import { createAnthropicProvider } from './anthropic'
import { limitKeyOf } from './limit-key'
import { createOpenAIProvider } from './openai'
import { sleep } from './sleep'

describe('limitKeyOf', () => {
  it('names an endpoint by kind, base URL and a hash of the key, never the key', () => {
    const key = 'sk-proj-limit-key-test-0000000000'
    const name = limitKeyOf('openai', 'http://127.0.0.1:8000/v1', key)
    expect(name).toMatch(/^openai http:\/\/127\.0\.0\.1:8000\/v1 [0-9a-f]{16}$/)
    expect(name).not.toContain(key)
    expect(name).not.toContain(key.slice(-8))
    expect(limitKeyOf('openai', 'http://127.0.0.1:8000/v1', key)).toBe(name)
    // Another key, another URL or another kind is another endpoint, with its own limits.
    expect(limitKeyOf('openai', 'http://127.0.0.1:8000/v1', `${key}1`)).not.toBe(name)
    expect(limitKeyOf('openai', 'http://127.0.0.1:9000/v1', key)).not.toBe(name)
    expect(limitKeyOf('anthropic', 'http://127.0.0.1:8000/v1', key)).not.toBe(name)
    expect(limitKeyOf('openai', undefined, key)).toMatch(/^openai default /)
  })

  it('is what each HTTP provider says it counts against', () => {
    const options = { model: 'm', apiKey: 'sk-test-00000000', baseURL: 'http://127.0.0.1:1/v1', sleep }
    expect(createOpenAIProvider(options).limitKey).toBe(limitKeyOf('openai', 'http://127.0.0.1:1/v1', 'sk-test-00000000'))
    // Anthropic's base URL is kept without /v1, as its SDK is given it.
    expect(createAnthropicProvider(options).limitKey).toBe(limitKeyOf('anthropic', 'http://127.0.0.1:1', 'sk-test-00000000'))
  })
})
