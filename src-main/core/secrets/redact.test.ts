import { describe, expect, it } from 'vitest'
import { providerEnvironment } from '../settings/providers'
import { createRedactor, providerKeyVariables, redactedMark as mark } from './redact'

const known = 'live-key-0123456789abcdef'
const redactor = createRedactor([known, null, undefined, 'short', `${known}-longer-variant`, ' '])

describe('createRedactor: known secrets', () => {
  it('replaces every occurrence, a longer secret that contains another whole', () => {
    expect(redactor.redact(`a ${known} b ${known}`)).toBe(`a ${mark} b ${mark}`)
    expect(redactor.redact(`x${known}-longer-variant`)).toBe(`x${mark}`)
  })

  it('ignores values under 8 characters, so they do not shred ordinary text', () => {
    expect(redactor.secrets).toEqual([`${known}-longer-variant`, known])
    expect(redactor.redact('a short word')).toBe('a short word')
  })

  it('redactKnown takes out known secrets only, in JSON text as JSON escapes them', () => {
    const quoted = 'pass"word\\1234'
    const json = JSON.stringify({ a: `${known} sk-proj-AbC123dEf456GhI789`, b: quoted })
    expect(createRedactor([known, quoted]).redactKnown(json)).toBe(`{"a":"${mark} sk-proj-AbC123dEf456GhI789","b":"${mark}"}`)
  })

  it('finds a secret saved with surrounding whitespace', () => {
    expect(createRedactor([`  ${known}\n`]).redact(`key=${known};`)).toBe(`key=${mark};`)
  })
})

describe('createRedactor: shapes and named credentials, with no secret known', () => {
  const none = createRedactor([])
  const cases: [string, string, string][] = [
    ['an OpenAI project key', 'key sk-proj-AbC123dEf456GhI789 here', `key ${mark} here`],
    ['an Anthropic key', 'sk-ant-api03-AbC_dEf-1234567890', mark],
    ['a masked key in an API error', 'Incorrect API key provided: sk-proj-********abcd.', `Incorrect API key provided: ${mark}.`],
    ['a bearer token, scheme kept', 'curl -H "Authorization: Bearer abc123def456ghi"', `curl -H "Authorization: Bearer ${mark}"`],
    ['a Basic credential with base64 padding', 'Authorization: Basic dXNlcjpwYXNzd29yZA==', `Authorization: Basic ${mark}`],
    ['an x-api-key header line', '> x-api-key: 9f8e7d6c5b4a39281706', `> x-api-key: ${mark}`],
    ['an api-key header in JSON', '{"api-key":"9f8e7d6c5b4a3928"}', `{"api-key":"${mark}"}`],
    ['an environment assignment', 'GITHUB_TOKEN=ghp_abcdefghijklmnop', `GITHUB_TOKEN=${mark}`],
    ['a provider variable in a .env file', 'OPENROUTER_API_KEY="or-v1-abcdefgh"', `OPENROUTER_API_KEY="${mark}"`],
    ['a key in a URL query', 'GET https://maps.example/api?q=x&key=AIzaSyA1b2c3d4&z=1', `GET https://maps.example/api?q=x&key=${mark}&z=1`],
    ['a token in a URL query', 'wss://host/stream?access_token=abcdefghijkl', `wss://host/stream?access_token=${mark}`],
    ['a URL password, however short', 'postgres://admin:pw@db:5432/app', `postgres://admin:${mark}@db:5432/app`],
  ]
  it.each(cases)('redacts %s', (_name, text, expected) => {
    expect(none.redact(text)).toBe(expected)
  })

  const kept: [string, string][] = [
    ['prose about bearer tokens', 'Use Bearer authentication with a Basic configuration.'],
    ['code that reads a header', 'headers: { Authorization: header, "x-api-key": apiKeyFromEnv }'],
    ['code that assigns a variable', 'const OPENAI_API_KEY = process.env.OPENAI_API_KEY'],
    ['a shell that expands a variable', 'export OPENAI_API_KEY=$OPENAI_API_KEY'],
    ['a short query value', 'https://example.com/?key=abc&token=1'],
    ['words that contain sk-', 'task-runner and desk-lamp-with-a-long-name'],
    ['a URL without a password', 'https://user@example.com/path'],
  ]
  it.each(kept)('keeps %s', (_name, text) => {
    expect(none.redact(text)).toBe(text)
  })

  it('is idempotent: redacted text is left as it is', () => {
    for (const [, text] of cases) {
      const once = redactor.redact(text)
      expect(redactor.redact(once)).toBe(once)
    }
    const mixed = `OPENAI_API_KEY=${known} Bearer ${known} ?key=${known} https://u:${known}@h`
    expect(redactor.redact(redactor.redact(mixed))).toBe(redactor.redact(mixed))
    expect(redactor.redact(mixed)).not.toContain(known)
  })
})

describe('createRedactor: redactDeep', () => {
  it('redacts every string and property name, and the whole value of a credential header', () => {
    const value = {
      output: `a ${known}`,
      nested: [{ [known]: 'plain' }, 3, true, null],
      headers: { Authorization: 'Token plain-words-only', 'X-Api-Key': 'abcdefghijkl', accept: 'application/json' },
    }
    expect(redactor.redactDeep(value)).toEqual({
      output: `a ${mark}`,
      nested: [{ [mark]: 'plain' }, 3, true, null],
      headers: { Authorization: mark, 'X-Api-Key': mark, accept: 'application/json' },
    })
  })

  it('returns the value itself, or its untouched parts, when nothing needed redacting', () => {
    const clean = { a: 'b', list: [{ c: 'd' }], n: 1 }
    expect(redactor.redactDeep(clean)).toBe(clean)
    const partly = { clean: { c: 'd' }, dirty: [known, 'x'] }
    const out = redactor.redactDeep(partly)
    expect(out.clean).toBe(partly.clean)
    expect(out.dirty).toEqual([mark, 'x'])
    expect(partly.dirty[0]).toBe(known)
  })
})

describe('providerKeyVariables', () => {
  it('names every variable a provider reads its key from', () => {
    for (const { key } of Object.values(providerEnvironment)) if (key) expect(providerKeyVariables).toContain(key)
  })
})
