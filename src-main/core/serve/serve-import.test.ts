import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createEngine, type Engine } from '../engine'
import { FileKeyStore } from '../settings/key-store'
import { testAgentHost } from '../supervisor/testing'
import { complete, createTestRig, exploreResult, taskCall, type TestRig } from '../supervisor/testing'
import type { AgentNode } from '../trace/model'
import { startServer, type RunningServer } from './server'
import { useCleanups } from '../testing/cleanups'

/**
 * `arbor serve` as a browser uses it to open a trace: POST /import (token, same origin, size
 * cap, all-or-nothing), GET /export/<job>.otlp.json, and the WebSocket API refusing to steer an
 * imported (read-only) job. The trace comes from a real job run by real agent processes, and is
 * imported into a second engine with its own database.
 */

let source: TestRig
let sourceJob: string
let sourceAgents: AgentNode[]
let trace: string
let traceLines: string[]

beforeAll(async () => {
  source = createTestRig()
  sourceJob = source.start({
    root: [{ tool_calls: [taskCall('Look around'), taskCall('Read the README')] }, complete('looked around')],
    children: { 'Look around': [complete(exploreResult('looked'))], 'Read the README': [complete(exploreResult('read it'))] },
  })
  await source.engine.waitForJob(sourceJob)
  sourceAgents = (await source.engine.handlers.getTree({ job_id: sourceJob })).agents
  const file = path.join(path.dirname(source.project), 'trace.jsonl')
  await source.engine.exportJsonl(sourceJob, file)
  trace = readFileSync(file, 'utf8')
  traceLines = trace.trimEnd().split('\n')
}, 30_000)

afterAll(async () => {
  await source?.engine.close()
})

const { cleanups, tempDir } = useCleanups('arbor-serve-import-')

interface Served {
  engine: Engine
  server: RunningServer
}

/** A second engine (its own database, no project open) behind `serve`. */
async function serve(options: { maxImportBytes?: number } = {}): Promise<Served> {
  const dir = tempDir()
  const rendererDir = path.join(dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Arbor test page</title>\n')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: {},
  })
  cleanups.push(() => engine.close())
  const server = await startServer({ engine, rendererDir, maxImportBytes: options.maxImportBytes })
  cleanups.push(() => server.close())
  return { engine, server }
}

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  text: string
}

/** One HTTP request; `body` as an array is sent chunked (no Content-Length), one write per element. */
function request(
  server: RunningServer,
  method: string,
  target: string,
  options: { body?: string | string[]; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: server.port, method, path: target, headers: options.headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      )
      response.on('error', reject)
    })
    outgoing.on('error', reject)
    if (Array.isArray(options.body)) {
      for (const piece of options.body) outgoing.write(piece)
      outgoing.end()
    } else {
      outgoing.end(options.body)
    }
  })
}

const upload = (server: RunningServer, body: string | string[], headers: Record<string, string> = {}) =>
  request(server, 'POST', `/import?token=${server.token}`, { body, headers: { 'content-type': 'application/x-ndjson', ...headers } })

const treeShape = (agents: AgentNode[]) =>
  agents.map(({ id, parent_id, depth, label, profile, status, terminal_reason }) => ({
    id,
    parent_id,
    depth,
    label,
    profile,
    status,
    terminal_reason,
  }))

async function jobCount(served: Served): Promise<number> {
  return (await served.engine.handlers.listJobs({})).jobs.length
}

describe('POST /import', () => {
  it('imports a good trace read-only with the same agents; a second upload finds it existing', async () => {
    const served = await serve()
    const first = await upload(served.server, trace)
    expect(first.status).toBe(200)
    expect(JSON.parse(first.text)).toEqual({ job_id: sourceJob, events: traceLines.length - 1, existing: false })

    const { jobs } = await served.engine.handlers.listJobs({})
    expect(jobs).toHaveLength(1)
    expect(jobs[0]).toMatchObject({ id: sourceJob, imported: true, status: 'completed' })
    const imported = (await served.engine.handlers.getTree({ job_id: sourceJob })).agents
    expect(imported).toHaveLength(3)
    expect(treeShape(imported)).toEqual(treeShape(sourceAgents))

    const second = await upload(served.server, trace)
    expect(second.status).toBe(200)
    expect(JSON.parse(second.text)).toEqual({ job_id: sourceJob, events: 0, existing: true })
    expect(await jobCount(served)).toBe(1)
  })

  it('refuses a file with a bad line with 400 naming the line, and imports nothing', async () => {
    const served = await serve()
    const lines = [...traceLines]
    lines[2] = '{"type": "agent.start", "oops"'
    const reply = await upload(served.server, lines.join('\n') + '\n')
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.text)).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('Trace line 3') } })
    expect(await jobCount(served)).toBe(0)
  })

  it('refuses a truncated file (cut inside the last line, or before its job.end line), importing nothing', async () => {
    const served = await serve()
    expect(JSON.parse(traceLines.at(-1)!).type).toBe('job.end')

    const cutInLine = trace.trimEnd().slice(0, -15)
    const inLine = await upload(served.server, cutInLine)
    expect(inLine.status).toBe(400)
    expect(JSON.parse(inLine.text).error.message).toContain(`Trace line ${traceLines.length}`)
    expect(await jobCount(served)).toBe(0)

    const withoutEnd = traceLines.slice(0, -1).join('\n') + '\n'
    const beforeEnd = await upload(served.server, withoutEnd)
    expect(beforeEnd.status).toBe(400)
    expect(JSON.parse(beforeEnd.text).error.message).toMatch(/job\.end.*truncated/)
    expect(await jobCount(served)).toBe(0)

    // The good file still imports afterwards: nothing of the refused ones was left behind.
    expect((await upload(served.server, trace)).status).toBe(200)
  })

  it('refuses an upload without the token (401) or from another origin (403)', async () => {
    const served = await serve()
    const anonymous = await request(served.server, 'POST', '/import', { body: trace })
    expect(anonymous.status).toBe(401)
    const wrongToken = await request(served.server, 'POST', '/import?token=not-the-token', { body: trace })
    expect(wrongToken.status).toBe(401)
    const crossOrigin = await upload(served.server, trace, { origin: 'http://evil.example' })
    expect(crossOrigin.status).toBe(403)
    expect(await jobCount(served)).toBe(0)
    // The page's own origin is fine.
    expect((await upload(served.server, trace, { origin: `http://127.0.0.1:${served.server.port}` })).status).toBe(200)
  })

  it('refuses a file over maxImportBytes with 413 (declared Content-Length)', async () => {
    const served = await serve({ maxImportBytes: 1000 })
    expect(trace.length).toBeGreaterThan(1000)
    const declared = await upload(served.server, trace)
    expect(declared.status).toBe(413)
    expect(await jobCount(served)).toBe(0)
    expect((await request(served.server, 'GET', `/?token=${served.server.token}`)).status).toBe(200)
  })

  it('refuses a chunked upload over maxImportBytes with 413 too (its size is only known as it arrives)', async () => {
    const served = await serve({ maxImportBytes: 1000 })
    const pieces = trace.match(/[\s\S]{1,400}/g) ?? []
    const streamed = await upload(served.server, pieces).catch((error: Error) => ({ status: -1, headers: {}, text: error.message }))
    expect(await jobCount(served)).toBe(0)
    expect(streamed, `a chunked upload over the cap: ${streamed.text}`).toMatchObject({ status: 413 })
    // The server still serves.
    expect((await request(served.server, 'GET', `/?token=${served.server.token}`)).status).toBe(200)
  })
})

describe('GET routes', () => {
  it('exports an imported job as OTLP JSON, and as the same JSONL it was imported from', async () => {
    const served = await serve()
    await upload(served.server, trace)
    const otlp = await request(served.server, 'GET', `/export/${sourceJob}.otlp.json?token=${served.server.token}`)
    expect(otlp.status).toBe(200)
    expect(otlp.headers['content-type']).toMatch(/^application\/json/)
    expect(otlp.headers['content-disposition']).toBe(`attachment; filename="arbor-${sourceJob}.otlp.json"`)
    const spans = JSON.parse(otlp.text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }
    expect(Array.isArray(spans.resourceSpans)).toBe(true)
    expect(spans.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)).length).toBeGreaterThanOrEqual(3)

    const jsonl = await request(served.server, 'GET', `/export/${sourceJob}.jsonl?token=${served.server.token}`)
    expect(jsonl.status).toBe(200)
    const withoutExportedAt = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(/"exported_at":"[^"]+"/, ''))
    expect(withoutExportedAt(jsonl.text)).toEqual(withoutExportedAt(trace))

    expect((await request(served.server, 'GET', `/export/job_missing.otlp.json?token=${served.server.token}`)).status).toBe(404)
    expect((await request(served.server, 'GET', `/export/${sourceJob}.otlp.json`)).status).toBe(401)
    // With the files' contents: a job with no file changes has the same lines; the token is needed as for the rest.
    const contents = await request(served.server, 'GET', `/export/${sourceJob}.contents.jsonl?token=${served.server.token}`)
    expect(contents.headers['content-disposition']).toBe(`attachment; filename="arbor-${sourceJob}.contents.jsonl"`)
    expect(withoutExportedAt(contents.text)).toEqual(withoutExportedAt(trace))
    expect((await request(served.server, 'GET', `/export/${sourceJob}.contents.jsonl`)).status).toBe(401)
    expect((await request(served.server, 'GET', `/export/${sourceJob}.contents.otlp.json?token=${served.server.token}`)).status).not.toBe(
      200,
    )
  })

  it('answers a bad percent-escape with 400 and keeps serving', async () => {
    const served = await serve()
    const bad = await request(served.server, 'GET', `/%E0%A4%A?token=${served.server.token}`)
    expect(bad.status).toBe(400)
    const page = await request(served.server, 'GET', `/?token=${served.server.token}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Arbor test page')
  })
})

describe('the WebSocket API on an imported job', () => {
  function connect(server: RunningServer, headers: Record<string, string> = {}): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { headers })
      socket.once('open', () => resolve(socket))
      socket.once('error', reject)
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)))
      cleanups.push(() => socket.terminate())
    })
  }

  function caller(socket: WebSocket) {
    let next = 1
    const waiting = new Map<number, (result: unknown) => void>()
    socket.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { id?: number | null; result?: unknown }
      if (typeof frame.id === 'number') waiting.get(frame.id)?.(frame.result)
    })
    return (method: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> =>
      new Promise((resolve) => {
        const id = next++
        waiting.set(id, resolve as (result: unknown) => void)
        socket.send(JSON.stringify({ id, method, input }))
      })
  }

  it('never reads or writes a file a browser names: importTrace and exportJob by path are refused', async () => {
    const served = await serve()
    const call = caller(await connect(served.server))
    const read = await call('importTrace', { path: '/etc/passwd' })
    expect(read).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('POST /import') } })
    const write = await call('exportJob', { job_id: sourceJob, path: '/tmp/arbor-should-not-exist.jsonl' })
    expect(write).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('/export/') } })
    expect(((await call('listJobs', {})).value as { jobs: unknown[] }).jobs).toEqual([])
  })

  it('refuses setAutoApprove, killAgent and setSpawnPaused with conflict, and still reads the tree', async () => {
    const served = await serve()
    await upload(served.server, trace)
    const call = caller(await connect(served.server))
    const root = sourceAgents.find((agent) => agent.depth === 0)!

    for (const [method, input] of [
      ['setAutoApprove', { job_id: sourceJob, value: true }],
      ['killAgent', { agent_id: root.id }],
      ['setSpawnPaused', { job_id: sourceJob, paused: true }],
    ] as const) {
      const result = await call(method, input)
      expect(result, method).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('read-only') } })
    }
    const tree = await call('getTree', { job_id: sourceJob })
    expect(tree.ok).toBe(true)
    const job = (tree.value as { job: { auto_approve: boolean; spawn_paused: boolean; imported: boolean } }).job
    // Nothing was recorded by the refused controls.
    expect(job).toMatchObject({ auto_approve: false, spawn_paused: false, imported: true })
    expect((tree.value as { agents: AgentNode[] }).agents.map((agent) => agent.status)).toEqual(sourceAgents.map((agent) => agent.status))
  })

  it('refuses an upgrade without the token or from another origin', async () => {
    const served = await serve()
    await expect(
      new Promise((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${served.server.port}/ws`)
        socket.once('open', resolve)
        socket.once('error', reject)
      }),
    ).rejects.toThrow()
    await expect(connect(served.server, { origin: 'http://evil.example' })).rejects.toThrow()
  })
})
