import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiError, ApiOutputs } from '../api/contract'
import { createDispatcher } from '../api/dispatcher'
import { defaultNewJob, type NewJobInput } from '../api/job-form'
import { createEngine, type Engine } from '../engine'
import type { Environment } from '../providers/connection'
import { defaultPrices } from '../providers/pricing'
import { anthropicErrors, startFakeAnthropic } from '../providers/testing/fake-anthropic'
import { openaiErrors, startFakeOpenAI, type FakeOpenAIResponse } from '../providers/testing/fake-openai'
import { FileKeyStore, type KeyCipher } from '../settings/key-store'
import { testAgentHost } from '../supervisor/testing'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'

/**
 * Settings through the engine's API handlers, as the settings screen uses them: write-only keys
 * (stored in a 0600 file, optionally sealed), the connection test against local servers that
 * speak the real wire formats, and the price table new jobs are costed with.
 */

const openaiKey = 'sk-test-settings-openai-KEY-9f3a'
const anthropicKey = 'sk-ant-test-settings-KEY-77b1'

const { cleanups, tempDir } = useCleanups('arbor-settings-')

interface EngineSetup {
  dir?: string
  env?: Environment
  keys?: FileKeyStore
  project?: string
}

function makeEngine(setup: EngineSetup = {}): { engine: Engine; dir: string; keyFile: string } {
  const dir = setup.dir ?? tempDir()
  const keyFile = path.join(dir, 'keys.json')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    projectDir: setup.project,
    killGraceMs: 1000,
    keys: setup.keys ?? new FileKeyStore(keyFile),
    env: setup.env ?? {},
  })
  cleanups.push(() => engine.close())
  return { engine, dir, keyFile }
}

async function fakeOpenAI(...queue: FakeOpenAIResponse[]) {
  const server = await startFakeOpenAI({ queue })
  cleanups.push(() => server.close())
  return server
}

function project(dir: string): string {
  const folder = path.join(dir, 'project')
  mkdirSync(folder)
  writeFileSync(path.join(folder, 'README.md'), '# Settings fixture\n')
  return folder
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())])

async function allEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events
}

const openaiJob = (baseUrl: string, overrides: Partial<NewJobInput> = {}) =>
  ({
    ...defaultNewJob(),
    task: 'ROOT-TASK: say done',
    provider: 'openai',
    base_url: baseUrl,
    model: 'gpt-4o',
    ...overrides,
  }) as const

/** The root's one turn: finish at once, with the usage the test prices. */
const finishAtOnce = {
  tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }],
  usage: { prompt_tokens: 1000, completion_tokens: 500 },
}

/** A cipher that is not encryption but shows whether the store used it: XOR with a marker. */
const xorCipher = (available = true): KeyCipher => ({
  available: () => available,
  encrypt: (plain) => Buffer.concat([Buffer.from('XOR1:'), Buffer.from(plain, 'utf8').map((byte) => byte ^ 0x5a)]),
  decrypt: (sealed) => {
    if (sealed.subarray(0, 5).toString() !== 'XOR1:') throw new Error('not sealed by this cipher')
    return Buffer.from(sealed.subarray(5).map((byte) => byte ^ 0x5a)).toString('utf8')
  },
  label: 'sealed by the test cipher',
})

/** The key a request carried: `x-api-key`, or the bearer token (what @anthropic-ai/sdk 1.x sends for an apiKey). */
const keySent = (headers: Record<string, string | string[] | undefined>): string | undefined =>
  (headers['x-api-key'] as string | undefined) ?? (headers.authorization as string | undefined)?.replace(/^Bearer /, '')

describe('provider keys are write-only', () => {
  it('a stored key shows as stored with its last four characters, and no response ever contains it', async () => {
    const dir = tempDir()
    const { engine, keyFile } = makeEngine({ dir, project: project(dir) })
    const server = await fakeOpenAI({ text: 'pong' }, finishAtOnce)

    const set = await engine.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    expect(set.key).toEqual({ source: 'stored', env_var: 'OPENAI_API_KEY', last4: '9f3a' })
    const settings = await engine.handlers.getSettings({})
    const openai = settings.providers.find((provider) => provider.id === 'openai')!
    expect(openai.key).toEqual({ source: 'stored', env_var: 'OPENAI_API_KEY', last4: '9f3a' })
    expect(settings.key_storage).toMatchObject({ encrypted: false, available: true })
    expect(settings.key_storage.description).toContain('not encrypted')

    // The file is the user's alone, and (with no cipher) holds the key as typed.
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(keyFile, 'utf8')).toContain(openaiKey)

    // The key goes only to the base URL saved for its provider.
    await engine.handlers.setProviderConfig({ provider: 'openai', base_url: `${server.url}/v1`, model: 'gpt-4o', light_model: null })
    const tested = await engine.handlers.testConnection({ provider: 'openai', base_url: `${server.url}/v1` })
    expect(tested).toMatchObject({ ok: true, answer: 'pong' })
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${openaiKey}`)

    const { job_id } = await engine.handlers.startJob({ kind: 'agent', job: openaiJob(`${server.url}/v1`) })
    await withTimeout(engine.waitForJob(job_id), 20_000, 'the job to end')
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${openaiKey}`)

    const tree = await engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    const responses: unknown[] = [
      set,
      settings,
      tested,
      await engine.handlers.listJobs({}),
      tree,
      ...(await Promise.all(tree.agents.map((agent) => engine.handlers.getEvents({ agent_id: agent.id })))),
      await engine.handlers.getSettings({}),
    ]
    for (const response of responses) expect(JSON.stringify(response)).not.toContain(openaiKey)
    expect(JSON.stringify(responses)).not.toContain(openaiKey.slice(0, -4))
  })

  it('with a cipher the key file never holds the plain key, and a new store with the cipher reads it back', async () => {
    const dir = tempDir()
    const keyFile = path.join(dir, 'sealed-keys.json')
    const { engine } = makeEngine({ dir, keys: new FileKeyStore(keyFile, xorCipher()) })
    await engine.handlers.setProviderKey({ provider: 'anthropic', key: anthropicKey })
    const text = readFileSync(keyFile, 'utf8')
    expect(text).not.toContain(anthropicKey)
    expect(text).not.toContain(anthropicKey.slice(0, 12))
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const settings = await engine.handlers.getSettings({})
    expect(settings.key_storage).toMatchObject({ encrypted: true, available: true, description: `${keyFile} (sealed by the test cipher)` })
    expect(new FileKeyStore(keyFile, xorCipher()).get('anthropic')).toBe(anthropicKey)
    expect(settings.providers.find((provider) => provider.id === 'anthropic')?.key).toEqual({
      source: 'stored',
      env_var: 'ANTHROPIC_API_KEY',
      last4: '77b1',
    })
  })

  it('refuses to store a key where the cipher has no keyring, saying so, and writes nothing', async () => {
    const dir = tempDir()
    const keyFile = path.join(dir, 'sealed-keys.json')
    const { engine } = makeEngine({ dir, keys: new FileKeyStore(keyFile, xorCipher(false)) })
    const dispatch = createDispatcher(engine.handlers)
    const result = await dispatch('setProviderKey', { provider: 'openai', key: openaiKey })
    expect(result).toMatchObject({ ok: false, error: { code: 'unsupported', message: expect.stringContaining('no OS keyring') } })
    expect(() => statSync(keyFile)).toThrow()
    expect((await engine.handlers.getSettings({})).key_storage.available).toBe(false)
  })

  it('clearing a stored key falls back to none, or to the environment variable when it is set', async () => {
    const { engine: bare } = makeEngine()
    await bare.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    expect((await bare.handlers.clearProviderKey({ provider: 'openai' })).key).toEqual({
      source: 'none',
      env_var: 'OPENAI_API_KEY',
      last4: null,
    })

    const { engine, keyFile } = makeEngine({ env: { OPENAI_API_KEY: 'sk-from-the-environment-0042' } })
    expect((await engine.handlers.getSettings({})).providers[0]?.key).toEqual({
      source: 'environment',
      env_var: 'OPENAI_API_KEY',
      last4: '0042',
    })
    await engine.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    expect((await engine.handlers.getSettings({})).providers[0]?.key.source).toBe('stored')
    const cleared = await engine.handlers.clearProviderKey({ provider: 'openai' })
    expect(cleared.key).toEqual({ source: 'environment', env_var: 'OPENAI_API_KEY', last4: '0042' })
    expect(readFileSync(keyFile, 'utf8')).not.toContain(openaiKey)
    // openai_compatible reads no variable.
    expect((await engine.handlers.clearProviderKey({ provider: 'openai_compatible' })).key).toEqual({
      source: 'none',
      env_var: null,
      last4: null,
    })
  })
})

describe('testConnection', () => {
  it('openai_compatible with the saved base URL: ok with the answer and a latency, from one tiny request', async () => {
    const { engine } = makeEngine()
    const server = await fakeOpenAI({ text: 'pong', delay_ms: 30 })
    const saved = await engine.handlers.setProviderConfig({
      provider: 'openai_compatible',
      base_url: `${server.url}/v1`,
      model: 'llama3.1',
      light_model: null,
    })
    expect(saved.provider).toMatchObject({ base_url: `${server.url}/v1`, base_url_source: 'settings', model: 'llama3.1' })

    const result = await engine.handlers.testConnection({ provider: 'openai_compatible' })
    expect(result).toEqual({ ok: true, latency_ms: expect.any(Number), model: 'llama3.1', answer: 'pong' })
    expect((result as { latency_ms: number }).latency_ms).toBeGreaterThanOrEqual(25)

    expect(server.requests).toHaveLength(1)
    const request = server.requests[0]!
    expect(request.path).toBe('/v1/chat/completions')
    const body = request.body as { model: string; messages: Array<{ role: string; content: string }>; tools?: unknown[] }
    expect(body.model).toBe('llama3.1')
    expect(body.messages).toHaveLength(1)
    expect(body.messages[0]?.role).toBe('user')
    expect(body.messages[0]?.content.length).toBeLessThan(200)
    expect(body.tools ?? []).toEqual([])
  })

  it('openai: a 401 is ok:false with status 401 and the provider message, not retried, and the key is not echoed back', async () => {
    const { engine } = makeEngine()
    await engine.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    // A compatible server that echoes the whole key in its error message.
    const server = await fakeOpenAI(openaiErrors.auth(`Incorrect API key provided: ${openaiKey}. Check your key.`))
    await engine.handlers.setProviderConfig({ provider: 'openai', base_url: `${server.url}/v1`, model: 'gpt-4o-mini', light_model: null })
    const result = await engine.handlers.testConnection({ provider: 'openai', base_url: `${server.url}/v1`, model: 'gpt-4o-mini' })
    expect(result).toMatchObject({ ok: false, status: 401, latency_ms: expect.any(Number) })
    const message = (result as { message: string }).message
    expect(message).toContain('Incorrect API key provided')
    expect(message).not.toContain(openaiKey)
    expect(JSON.stringify(result)).not.toContain(openaiKey)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${openaiKey}`)
  })

  it('a key typed and not saved is the one tested, sent to the URL the form shows, never stored or echoed back', async () => {
    const { engine } = makeEngine()
    await engine.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    const typed = 'sk-typed-but-not-saved-0000000000000000'
    const server = await fakeOpenAI(openaiErrors.auth(`Incorrect API key provided: ${typed}.`), { text: 'pong' })
    // Not the saved URL: with the saved key that is refused; with the typed one it is the user's own pairing.
    const url = `${server.url}/v1`
    const refused = await engine.handlers.testConnection({ provider: 'openai', base_url: url, model: 'gpt-4o-mini' })
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('only to the base URL in Settings') })
    expect(server.requests).toHaveLength(0)

    const failed = await engine.handlers.testConnection({ provider: 'openai', base_url: url, model: 'gpt-4o-mini', key: typed })
    expect(failed).toMatchObject({ ok: false, status: 401 })
    expect(JSON.stringify(failed)).not.toContain(typed)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${typed}`)
    const passed = await engine.handlers.testConnection({ provider: 'openai', base_url: url, model: 'gpt-4o-mini', key: typed })
    expect(passed).toMatchObject({ ok: true, answer: 'pong' })
    // The stored key is still the saved one.
    expect((await engine.handlers.getSettings({})).providers.find((provider) => provider.id === 'openai')?.key.last4).toBe(
      openaiKey.slice(-4),
    )
  })

  it('a server error is reported once, not retried', async () => {
    const { engine } = makeEngine()
    const server = await fakeOpenAI(openaiErrors.server(), openaiErrors.server())
    const result = await engine.handlers.testConnection({ provider: 'openai_compatible', base_url: `${server.url}/v1`, model: 'llama3.1' })
    expect(result).toMatchObject({ ok: false, status: 500, message: expect.stringContaining('The server had an error') })
    expect(server.requests).toHaveLength(1)
  })

  it('never sends a stored key to a base URL other than the saved one', async () => {
    const { engine } = makeEngine()
    await engine.handlers.setProviderKey({ provider: 'openai', key: openaiKey })
    const elsewhere = await fakeOpenAI({ text: 'pong' })
    const result = await engine.handlers.testConnection({ provider: 'openai', base_url: `${elsewhere.url}/v1` })
    expect(result).toMatchObject({ ok: false, status: null, message: expect.stringContaining('only to the base URL in Settings') })
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('without a key for a remote server it says where to put one, sending nothing', async () => {
    const { engine } = makeEngine()
    const result = await engine.handlers.testConnection({ provider: 'openai' })
    expect(result).toEqual({ ok: false, latency_ms: 0, status: null, message: expect.stringContaining('Settings ▸ Providers') })
    expect((result as { message: string }).message).toContain('OPENAI_API_KEY')
  })

  it('anthropic (base URL without /v1): ok, sent with the stored key; a 401 gives status 401 and the message', async () => {
    const { engine } = makeEngine()
    await engine.handlers.setProviderKey({ provider: 'anthropic', key: anthropicKey })
    const server = await startFakeAnthropic({ queue: [{ text: 'pong' }, anthropicErrors.auth('invalid x-api-key')] })
    cleanups.push(() => server.close())
    await engine.handlers.setProviderConfig({ provider: 'anthropic', base_url: server.url, model: 'claude-sonnet-4-6', light_model: null })

    const ok = await engine.handlers.testConnection({ provider: 'anthropic', base_url: server.url, model: 'claude-haiku-4-5' })
    expect(ok).toEqual({ ok: true, latency_ms: expect.any(Number), model: 'claude-haiku-4-5', answer: 'pong' })
    const request = server.requests[0]!
    expect(request.path).toBe('/v1/messages')
    expect(keySent(request.headers)).toBe(anthropicKey)
    const body = request.body as { messages: unknown[]; tools?: unknown[]; max_tokens: number; system?: unknown }
    expect(body.messages).toHaveLength(1)
    expect(body.tools ?? []).toEqual([])
    expect(body.max_tokens).toBeLessThanOrEqual(16)

    const refused = await engine.handlers.testConnection({ provider: 'anthropic', base_url: server.url })
    expect(refused).toMatchObject({ ok: false, status: 401, message: expect.stringContaining('invalid x-api-key') })
    expect(JSON.stringify([ok, refused])).not.toContain(anthropicKey)
    expect(server.requests).toHaveLength(2)
    expect((server.requests[1]?.body as { model: string }).model).toBe('claude-sonnet-4-6')
  })
})

describe('the price table', () => {
  const row = (prices: ApiOutputs['setPrice']['prices'], model: string) => prices.find((price) => price.model === model)

  it('marks added models custom and changed built-ins edited; reset restores; edits survive a restart', async () => {
    const dir = tempDir()
    const { engine } = makeEngine({ dir })
    const before = (await engine.handlers.getSettings({})).prices
    expect(row(before, 'gpt-4o')).toEqual({ model: 'gpt-4o', ...defaultPrices['gpt-4o'], source: 'builtin' })
    expect(row(before, 'my-local-model')).toBeUndefined()

    const added = await engine.handlers.setPrice({
      model: 'my-local-model',
      price: { input: 0.5, output: 1, cache_read: 0.1, cache_write: 0.5 },
    })
    expect(row(added.prices, 'my-local-model')).toEqual({
      model: 'my-local-model',
      input: 0.5,
      output: 1,
      cache_read: 0.1,
      cache_write: 0.5,
      source: 'custom',
    })
    const edited = await engine.handlers.setPrice({ model: 'gpt-4o', price: { input: 3, output: 20, cache_read: 1, cache_write: 3 } })
    expect(row(edited.prices, 'gpt-4o')).toEqual({ model: 'gpt-4o', input: 3, output: 20, cache_read: 1, cache_write: 3, source: 'edited' })
    expect(edited.prices.map((price) => price.model)).toEqual(
      [...edited.prices.map((price) => price.model)].sort((a, b) => a.localeCompare(b)),
    )

    await engine.close()
    const { engine: reopened } = makeEngine({ dir })
    const after = (await reopened.handlers.getSettings({})).prices
    expect(row(after, 'gpt-4o')).toMatchObject({ input: 3, output: 20, source: 'edited' })
    expect(row(after, 'my-local-model')).toMatchObject({ input: 0.5, source: 'custom' })

    const reset = await reopened.handlers.resetPrice({ model: 'gpt-4o' })
    expect(row(reset.prices, 'gpt-4o')).toEqual({ model: 'gpt-4o', ...defaultPrices['gpt-4o'], source: 'builtin' })
    const removed = await reopened.handlers.resetPrice({ model: 'my-local-model' })
    expect(row(removed.prices, 'my-local-model')).toBeUndefined()
    expect(removed.prices).toHaveLength(Object.keys(defaultPrices).length)
  })

  it('refuses a negative price field by field', async () => {
    const { engine } = makeEngine()
    const result = await createDispatcher(engine.handlers)('setPrice', {
      model: 'gpt-4o',
      price: { input: -1, output: 1, cache_read: 0, cache_write: 0 },
    })
    expect(result.ok).toBe(false)
    expect((result as { error: ApiError }).error.code).toBe('invalid_request')
    expect(row((await engine.handlers.getSettings({})).prices, 'gpt-4o')?.source).toBe('builtin')
  })

  it('a job started after an edit is costed with the edited price', async () => {
    const dir = tempDir()
    const { engine } = makeEngine({ dir, project: project(dir) })
    const server = await fakeOpenAI(finishAtOnce)
    await engine.handlers.setPrice({ model: 'gpt-4o', price: { input: 3, output: 20, cache_read: 1, cache_write: 3 } })
    const { job_id } = await engine.handlers.startJob({
      kind: 'agent',
      job: openaiJob(`${server.url}/v1`, { provider: 'openai_compatible', job_cost_budget: 5 }),
    })
    await withTimeout(engine.waitForJob(job_id), 20_000, 'the job to end')

    const calls = (await allEvents(engine, job_id)).filter((event) => event.type === 'llm.call')
    expect(calls).toHaveLength(1)
    expect(calls[0]?.data.usage).toMatchObject({ input_tokens: 1000, output_tokens: 500 })
    // 1000 input tokens at $3/M + 500 output tokens at $20/M (the built-in gpt-4o price would be $0.0075).
    expect(calls[0]?.data.cost_usd).toBeCloseTo(0.013, 10)
    const job = (await engine.handlers.listJobs({})).jobs.find((each) => each.id === job_id)
    expect(job?.status).toBe('completed')
    expect(job?.cost_usd).toBeCloseTo(0.013, 10)
  })
})
