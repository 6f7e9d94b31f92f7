import Database from 'better-sqlite3'
import fc from 'fast-check'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createEngine, type Engine } from '../engine'
import { answerFrame } from '../serve/socket-api'
import { FileKeyStore } from '../settings/key-store'
import type { ProcessHost } from '../supervisor/process-host'
import { apiContract, type ApiHandlers, type ApiMethod, type ApiResult } from './contract'
import { createDispatcher, type Dispatch } from './dispatcher'
import { defaultNewJob } from './job-form'
import { mutateJson, mutation, oddValue, type Mutation } from '../testing/fuzz-mutations'

/**
 * The dispatcher (what IPC and the `serve` WebSocket both call) and the WebSocket's frame layer
 * in front of it, fed random input and valid requests of every method mutated: nothing throws,
 * every reply is a well-formed result or `{code, message}` error that JSON can carry, and a
 * request that fails leaves every table of the real SQLite file as it was.
 */

// Agent processes never start: a started job's root fails at once, so no job runs on in the
// background and writes between two snapshots.
const noAgents: ProcessHost = {
  spawn() {
    throw new Error('no agent processes in the fuzz test')
  },
}

let dir: string
let engine: Engine
let dispatch: Dispatch
let database: Database.Database
let valid: Record<ApiMethod, unknown[]>

beforeAll(async () => {
  // No request may reach the network: testConnection with a stored key calls the provider.
  vi.stubGlobal('fetch', async () => {
    throw new TypeError('no network in the fuzz test')
  })
  dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-dispatcher-fuzz-'))
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Fuzz\n')
  const dbFile = path.join(dir, 'arbor.db')
  engine = createEngine({
    dbFile,
    processHost: noAgents,
    projectDir: project,
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: {},
    liveness: { heartbeatMs: 3_600_000 },
  })
  const files = path.join(dir, 'files')
  mkdirSync(files)
  dispatch = createDispatcher(confineFiles(engine.handlers, files))
  database = new Database(dbFile, { readonly: true })
  const started = await dispatch('startJob', { kind: 'scripted', task: 'a job for the fuzz' })
  if (!started.ok) throw new Error(`could not start the fixture job: ${started.error.message}`)
  const { job_id, root_agent_id } = started.value as { job_id: string; root_agent_id: string }
  await engine.waitForJob(job_id)
  valid = validRequests({ project, jobId: job_id, agentId: root_agent_id })
})

afterAll(async () => {
  database?.close()
  await engine?.close()
  vi.unstubAllGlobals()
  rmSync(dir, { recursive: true, force: true })
})

/** exportJob and importTrace name files: the fuzz keeps them inside one folder, whatever the path says. */
function confineFiles(handlers: ApiHandlers, folder: string): ApiHandlers {
  const inside = (file: string): string => path.join(folder, `f-${Buffer.from(file).toString('hex').slice(0, 64)}`)
  return {
    ...handlers,
    exportJob: (input) => handlers.exportJob(input.path === undefined ? input : { ...input, path: inside(input.path) }),
    importTrace: (input) => handlers.importTrace({ ...input, path: inside(input.path) }),
  }
}

/** At least one valid request per method: the seeds the mutations start from. */
function validRequests(ids: { project: string; jobId: string; agentId: string }): Record<ApiMethod, unknown[]> {
  const { project, jobId, agentId } = ids
  const base = { base_url: 'http://127.0.0.1:9/v1', model: 'gpt-4.1', light_model: null }
  const requests: Record<ApiMethod, unknown[]> = {
    getState: [{}],
    openProject: [{ path: project }],
    listJobs: [{}],
    closeProject: [{}],
    listRecentProjects: [{}],
    completePath: [{ prefix: `${project}/` }, { prefix: '' }],
    chooseProjectFolder: [{}],
    chooseTraceFile: [{}],
    listProfiles: [{}],
    listMcpServers: [{}, { start: false }],
    getJobDefaults: [{}],
    startJob: [
      { kind: 'demo', spawn_paused: true, auto_approve: false },
      { kind: 'scripted', task: 'fuzz', spawn_paused: false, auto_approve: true, max_depth: 1, max_concurrent_children: 2 },
      { kind: 'agent', job: { ...defaultNewJob(), task: 'fuzz the form' } },
    ],
    getTree: [{ job_id: jobId }, { job_id: jobId, limit: 1 }, { job_id: jobId, limit: 10, page: { snapshot: 'snapshot-1', offset: 10 } }],
    getEvents: [{ agent_id: agentId, after_seq: 0, limit: 10 }],
    getTimeline: [{ job_id: jobId }],
    getReplayEvents: [{ job_id: jobId, after_seq: 0, limit: 10 }],
    getChanges: [{ job_id: jobId }, { job_id: jobId, agent_id: agentId, subtree: true }, { job_id: jobId, counts_only: true }],
    getFileDiff: [{ job_id: jobId, agent_id: agentId, path: 'src/a.ts' }],
    revertChanges: [{ agent_id: agentId }, { agent_id: agentId, subtree: true }],
    setSpawnPaused: [
      { job_id: jobId, paused: true },
      { job_id: null, paused: false },
    ],
    killAgent: [{ agent_id: agentId }],
    cancelSpawn: [{ agent_id: agentId }],
    allowSpawn: [{ agent_id: agentId }],
    restartAgent: [{ agent_id: agentId }],
    retryNow: [{ agent_id: agentId }],
    setAutoApprove: [{ job_id: jobId, value: true }],
    setSubagentApprovals: [{ job_id: jobId, mode: 'ask' }],
    revokeApprovedCommand: [{ job_id: jobId, command: 'rm notes.txt' }],
    steerAgent: [{ agent_id: agentId, text: 'look at cart.ts first' }],
    followUp: [
      { job_id: jobId, text: 'now add a test for it' },
      { job_id: jobId, agent_id: agentId, text: 'and the edge case', job_token_budget: 50_000 },
    ],
    resumeJob: [{ job_id: jobId }],
    editSpawn: [{ agent_id: agentId, prompt: 'survey src/ only' }],
    setBudget: [
      { job_id: jobId, tokens: 200_000 },
      { agent_id: agentId, tokens: 20_000, cost_usd: 0.5 },
    ],
    stopAgent: [
      { agent_id: agentId, mode: 'wrap_up' },
      { agent_id: agentId, mode: 'kill' },
    ],
    decideApproval: [{ approval_id: 'approval-1', decision: 'approved' }],
    exportJob: [
      { job_id: jobId, path: 'trace.jsonl', format: 'jsonl' },
      { job_id: jobId, format: 'otlp' },
    ],
    importTrace: [{ path: 'trace.jsonl' }],
    getSettings: [{}],
    setProviderKey: [{ provider: 'openai', key: 'sk-fuzz-0123456789' }],
    clearProviderKey: [{ provider: 'anthropic' }],
    setProviderConfig: [{ provider: 'openai_compatible', ...base }],
    testConnection: [{ provider: 'openai', base_url: base.base_url, model: base.model }],
    setPrice: [{ model: 'fuzz-model', price: { input: 1, output: 2, cache_read: 0.5, cache_write: 0 } }],
    resetPrice: [{ model: 'fuzz-model' }],
    setMaxModelCalls: [{ value: 4 }],
    getTraceExport: [{}],
    // Off, and to a closed local port: a mutation that turns it on still sends nothing off the machine.
    setTraceExport: [
      { endpoint: 'http://127.0.0.1:9/v1/traces', enabled: false, headers: [{ name: 'Authorization', value: 'Basic ZnV6ejpmdXp6' }] },
    ],
    mergeBranch: [{ agent_id: agentId }],
    discardBranch: [{ agent_id: agentId }],
    listWorktrees: [{}, { project: '/tmp' }],
  }
  return requests
}

const methods = Object.keys(apiContract) as ApiMethod[]

const replySchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }).strict(),
  z
    .object({
      ok: z.literal(false),
      error: z
        .object({
          code: z.enum(['invalid_request', 'unknown_method', 'not_found', 'conflict', 'unsupported', 'internal']),
          message: z.string().min(1),
          fields: z.record(z.string(), z.string()).optional(),
        })
        .strict(),
    })
    .strict(),
])

/** Every row of every table, in a stable order. */
function readTables(): Record<string, string[]> {
  const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
  return Object.fromEntries(
    tables.map((table) => [
      table,
      (database.prepare(`SELECT * FROM "${table}"`).all() as unknown[]).map((row) => JSON.stringify(row)).sort(),
    ]),
  )
}

/**
 * The tables' rows, read again only when the engine's connection committed since the last read
 * (SQLite's `PRAGMA data_version` changes then): most requests fail and commit nothing, so most
 * snapshots cost one pragma, and the fuzz stays fast as the store grows.
 */
let snapshotVersion = -1
let snapshotRows: Record<string, string[]> = {}
function snapshot(): Record<string, string[]> {
  const version = database.pragma('data_version', { simple: true }) as number
  if (version !== snapshotVersion) {
    snapshotRows = readTables()
    snapshotVersion = version
  }
  return snapshotRows
}

/** After a success: a started job ends (its root cannot start) and the writer's batch commits. */
async function settle(result: ApiResult<unknown>): Promise<void> {
  if (!result.ok) return
  const started = result.value as { job_id?: unknown; root_agent_id?: unknown }
  if (typeof started.job_id === 'string' && 'root_agent_id' in started) await engine.waitForJob(started.job_id)
  await new Promise((resolve) => setTimeout(resolve, 15))
}

const internalErrors: string[] = []

/** One request through `call`: the reply is well-formed and JSON-safe, and a failure changed no table. */
async function checkRequest(method: string, call: () => Promise<ApiResult<unknown>>): Promise<ApiResult<unknown>> {
  const before = snapshot()
  const result = await call()
  const parsed = replySchema.safeParse(result)
  expect(parsed.success, `a malformed reply to ${method}: ${JSON.stringify(result)}`).toBe(true)
  expect(() => JSON.stringify(result)).not.toThrow()
  if (!result.ok) {
    if (result.error.code === 'internal') internalErrors.push(`${method}: ${result.error.message}`)
    expect(snapshot(), `${method} failed (${result.error.code}: ${result.error.message}) but changed the store`).toEqual(before)
  }
  await settle(result)
  return result
}

const seedRequest = fc
  .constantFrom(...methods)
  .chain((method) => fc.record({ method: fc.constant(method), input: fc.constantFrom(...valid[method]) }))

const methodName = fc.oneof(
  fc.constantFrom(...methods),
  fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', 'then', ''),
  fc.string({ maxLength: 120 }),
)

describe('the dispatcher', () => {
  it('has a valid seed request for every method of the contract', async () => {
    expect(Object.keys(valid).sort()).toEqual([...methods].sort())
    for (const method of methods) {
      for (const input of valid[method])
        expect(apiContract[method].safeParse(input).success, `${method} ${JSON.stringify(input)}`).toBe(true)
    }
  })

  it('answers arbitrary methods and inputs (IPC can carry any structured-clone value) with a well-formed reply', async () => {
    const input = fc.anything({
      withNullPrototype: true,
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      maxDepth: 3,
    })
    await fc.assert(
      fc.asyncProperty(methodName, input, async (method, value) => {
        await checkRequest(method, () => dispatch(method, value))
      }),
      { numRuns: 300 },
    )
  })

  it('answers valid requests of every method, mutated, with a well-formed reply, and a failure changes no table', async () => {
    let failures = 0
    await fc.assert(
      fc.asyncProperty(
        seedRequest,
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async ({ method, input }, mutations: Mutation[]) => {
          const result = await checkRequest(method, () => dispatch(method, mutateJson(input, mutations)))
          if (!result.ok) failures++
        },
      ),
      { numRuns: 500 },
    )
    // Most mutations break the request: the property was tested on failures, not only on successes.
    expect(failures).toBeGreaterThan(200)
    expect(internalErrors).toEqual([])
  })
})

describe('the WebSocket frame layer', () => {
  const frameSchema = z.object({ id: z.number().int().nullable(), result: replySchema }).strict()

  const methodOf = (raw: string): string => {
    try {
      return `frame ${JSON.stringify((JSON.parse(raw) as { method?: unknown } | null)?.method)}`
    } catch {
      return 'frame (not JSON)'
    }
  }

  /** What a browser may not call over the socket (it downloads exports and uploads traces over HTTP). */
  const refusals: Record<string, string> = {
    exportJob: 'exportJob: download GET /export/<job_id>.jsonl (or .contents.jsonl, .otlp.json) instead',
    importTrace: 'importTrace: upload the file with POST /import instead',
  }

  /**
   * Why a frame is not a request, stated apart from the server's schema: not JSON, or the fields
   * of the envelope that are wrong (`(frame)` for the frame itself: not an object, or a key it
   * does not have). Empty for a request.
   */
  const envelopeProblems = (raw: string): 'not JSON' | string[] => {
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      return 'not JSON'
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['(frame)']
    const frame = value as Record<string, unknown>
    const problems: string[] = []
    if (!Number.isSafeInteger(frame.id)) problems.push('id')
    if (typeof frame.method !== 'string' || frame.method.length > 100) problems.push('method')
    if (!Object.hasOwn(frame, 'input')) problems.push('input')
    if (Object.keys(frame).some((key) => !['id', 'method', 'input'].includes(key))) problems.push('(frame)')
    return problems
  }

  /**
   * The issues of an `invalid_request` message, `path: text; path: text`, split on the `; ` that
   * are outside quoted strings: a key the frame should not have is quoted in its issue, and may
   * itself hold `; ` (fast-check found `{"; ": ""}`).
   */
  const issuesOf = (message: string): string[] => {
    const issues: string[] = []
    let start = 0
    let quoted = false
    for (let at = 0; at < message.length; at++) {
      const char = message[at]
      if (quoted && char === '\\') at++
      else if (char === '"') quoted = !quoted
      else if (!quoted && message.startsWith('; ', at)) {
        issues.push(message.slice(start, at))
        start = at + 2
      }
    }
    return [...issues, message.slice(start)]
  }

  /** The reply frame is well-formed, and carries the very error the frame deserves. */
  const checkFrame = async (raw: string): Promise<void> => {
    const problems = envelopeProblems(raw)
    let reply: z.infer<typeof frameSchema> | undefined
    await checkRequest(methodOf(raw), async () => (reply = frameSchema.parse(JSON.parse(await answerFrame(raw, dispatch)))).result)
    const { id, result } = reply!
    if (problems === 'not JSON') {
      expect({ id, result }).toEqual({ id: null, result: { ok: false, error: { code: 'invalid_request', message: 'not JSON' } } })
      return
    }
    if (problems.length > 0) {
      // Answered without an id, naming each wrong field and only those.
      expect(id, raw).toBeNull()
      expect(result.ok, raw).toBe(false)
      if (result.ok) return
      expect(result.error.code, raw).toBe('invalid_request')
      const named = issuesOf(result.error.message).map((issue) => issue.slice(0, issue.indexOf(':')))
      expect([...new Set(named)].sort(), `${raw} → ${result.error.message}`).toEqual([...problems].sort())
      return
    }
    // A request: answered with its id, and with what the dispatcher answers it (a failure changed
    // nothing, so asking the dispatcher again gives the same answer), or with a browser refusal.
    const { id: requestId, method, input } = JSON.parse(raw) as { id: number; method: string; input: unknown }
    expect(id, raw).toBe(requestId)
    if (Object.hasOwn(refusals, method)) {
      expect(result).toEqual({ ok: false, error: { code: 'invalid_request', message: refusals[method] } })
      return
    }
    if (!result.ok) expect(result, raw).toEqual(await dispatch(method, input))
    frameKinds.add(result.ok ? 'ok' : result.error.code)
  }
  const frameKinds = new Set<string>()

  it('answers random text and JSON with a well-formed reply frame', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.jsonValue().map((value) => JSON.stringify(value)),
    )
    await fc.assert(fc.asyncProperty(text, checkFrame), { numRuns: 300 })
  })

  it('answers mutated request frames (as JSON, and cut or with a character changed) with a well-formed reply frame', async () => {
    const frame = fc.record({
      id: fc.oneof(fc.integer(), oddValue),
      method: fc.oneof(fc.constantFrom(...methods), methodName),
      extra: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), oddValue, { maxKeys: 2 }), { nil: undefined }),
    })
    const damage = fc.oneof(
      fc.constant((text: string) => text),
      fc.nat().map((at) => (text: string) => text.slice(0, at % (text.length + 1))),
      fc.tuple(fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })).map(([at, char]) => (text: string) => {
        const index = at % Math.max(1, text.length)
        return text.slice(0, index) + char + text.slice(index + 1)
      }),
    )
    await fc.assert(
      fc.asyncProperty(seedRequest, frame, fc.array(mutation, { maxLength: 2 }), damage, async (seed, envelope, mutations, cut) => {
        const method = methods.includes(envelope.method as ApiMethod) ? seed.method : envelope.method
        const body = { id: envelope.id, method, input: mutateJson(seed.input, mutations), ...envelope.extra }
        await checkFrame(cut(JSON.stringify(body) ?? ''))
      }),
      { numRuns: 300 },
    )
    // The exact answers were checked on requests that failed in the dispatcher, not only on envelopes.
    expect([...frameKinds]).toEqual(expect.arrayContaining(['invalid_request', 'unknown_method']))
  })

  it('answers each kind of bad frame with its own error', async () => {
    const cases: Array<[string, unknown]> = [
      ['not json', { id: null, result: { ok: false, error: { code: 'invalid_request', message: 'not JSON' } } }],
      [
        '[]',
        {
          id: null,
          result: { ok: false, error: { code: 'invalid_request', message: '(frame): Invalid input: expected object, received array' } },
        },
      ],
      [
        '{"id":1.5,"method":"listJobs","input":{}}',
        {
          id: null,
          result: { ok: false, error: { code: 'invalid_request', message: 'id: Invalid input: expected int, received number' } },
        },
      ],
      [
        '{"id":1,"method":"listJobs","input":{},"extra":1}',
        { id: null, result: { ok: false, error: { code: 'invalid_request', message: '(frame): Unrecognized key: "extra"' } } },
      ],
      [
        // A key that holds the separator and a quote is quoted as JSON, so the message still reads as one issue.
        '{"id":1,"method":"listJobs","input":{},"a\\"; b":1}',
        { id: null, result: { ok: false, error: { code: 'invalid_request', message: '(frame): Unrecognized key: "a\\"; b"' } } },
      ],
      [
        '{"id":2,"method":"__proto__","input":{}}',
        { id: 2, result: { ok: false, error: { code: 'unknown_method', message: expect.any(String) } } },
      ],
      [
        '{"id":3,"method":"exportJob","input":{}}',
        { id: 3, result: { ok: false, error: { code: 'invalid_request', message: refusals.exportJob } } },
      ],
      [
        '{"id":4,"method":"getTree","input":{"job_id":7}}',
        {
          id: 4,
          result: {
            ok: false,
            error: expect.objectContaining({
              code: 'invalid_request',
              message: 'getTree: job_id: Invalid input: expected string, received number',
            }),
          },
        },
      ],
      ['{"id":5,"method":"listJobs","input":{}}', { id: 5, result: { ok: true, value: expect.anything() } }],
    ]
    for (const [raw, expected] of cases) expect(JSON.parse(await answerFrame(raw, dispatch)), raw).toEqual(expected)
    for (const [raw] of cases) await checkFrame(raw)
  })
})
