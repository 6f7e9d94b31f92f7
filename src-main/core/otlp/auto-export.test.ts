import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { createDispatcher } from '../api/dispatcher'
import { createEngine, type Engine } from '../engine'
import { FileKeyStore } from '../settings/key-store'
import { testAgentHost } from '../supervisor/testing'
import { useCleanups } from '../testing/cleanups'
import { startOtlpReceiver, type ReceivedSpan } from './testing/otlp-receiver'

/**
 * The trace export setting end to end: saved through the API (zod-checked as for IPC and the
 * WebSocket), a scripted job run by the engine with real agent processes, and a real OTLP/HTTP
 * receiver that decodes what arrives with the official protos.
 */
const { cleanups, tempDir } = useCleanups('arbor-auto-export-')
const secret = 'Bearer auto-export-secret-0123456789'

function makeEngine(dir = tempDir()) {
  const project = path.join(dir, 'project')
  mkdirSync(project, { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Demo\n')
  const keyFile = path.join(dir, 'keys.json')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    projectDir: project,
    keys: new FileKeyStore(keyFile),
    env: {},
  })
  cleanups.push(() => engine.close())
  return { engine, dispatch: createDispatcher(engine.handlers), keyFile, dir }
}

/** The scripted plan: the root spawns two explore children through its `task` tool. */
async function runScripted(engine: Engine, dispatch: ReturnType<typeof createDispatcher>): Promise<string> {
  const started = await dispatch('startJob', { kind: 'scripted', task: 'map the project', auto_approve: true })
  if (!started.ok) throw new Error(started.error.message)
  const { job_id } = started.value as { job_id: string }
  await engine.waitForJob(job_id)
  return job_id
}

const attribute = (span: ReceivedSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value

describe('sending every finished job to a collector', () => {
  it('sends a job run by the engine once, with the stored header, subagents under their task call', async () => {
    const receiver = await startOtlpReceiver()
    cleanups.push(() => receiver.close())
    const { engine, dispatch, keyFile } = makeEngine()
    const saved = await dispatch('setTraceExport', {
      endpoint: receiver.url,
      enabled: true,
      headers: [{ name: 'Authorization', value: secret }],
    })
    expect(saved).toEqual({
      ok: true,
      value: {
        endpoint: receiver.url,
        url: `${receiver.url}/v1/traces`,
        enabled: true,
        headers: [{ name: 'Authorization', set: true }],
        last_send: null,
      },
    })
    // The value is in the key store, never in what the UI gets back.
    expect(JSON.stringify(saved)).not.toContain(secret)
    expect(readFileSync(keyFile, 'utf8')).toContain(secret)

    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    cleanups.push(() => log.mockRestore())
    const jobId = await runScripted(engine, dispatch)
    await receiver.waitForRequests(1)
    await engine.close()

    expect(receiver.requests).toHaveLength(1)
    const [request] = receiver.requests
    expect(request).toMatchObject({ method: 'POST', path: '/v1/traces', decodeError: null })
    expect(request!.headers['content-type']).toBe('application/x-protobuf')
    expect(request!.headers.authorization).toBe(secret)
    const spans = receiver.spans()
    const workflow = spans.filter((span) => attribute(span, 'gen_ai.operation.name')?.stringValue === 'invoke_workflow')
    expect(workflow).toHaveLength(1)
    expect(attribute(workflow[0]!, 'arbor.status')).toEqual({ stringValue: 'completed' })
    const agents = spans.filter((span) => attribute(span, 'gen_ai.operation.name')?.stringValue === 'invoke_agent')
    const children = agents.filter((span) => attribute(span, 'arbor.depth')?.intValue !== '0')
    expect(children.length).toBeGreaterThan(0)
    const byId = new Map(spans.map((span) => [span.spanId, span]))
    for (const child of children) expect(byId.get(child.parentSpanId!)?.name).toBe('execute_tool task')
    for (const agent of agents) expect(attribute(agent, 'gen_ai.provider.name')).toEqual({ stringValue: 'scripted' })
    expect(log.mock.calls.map((call) => String(call[0]))).toContain(
      `arbor: job ${jobId}: ${spans.length} spans sent to ${receiver.url}/v1/traces`,
    )
  }, 60_000)

  it('reports a refused send as a notice and in settings, and the job still completes', async () => {
    const receiver = await startOtlpReceiver()
    cleanups.push(() => receiver.close())
    receiver.respondWith(401)
    const { engine, dispatch } = makeEngine()
    await dispatch('setTraceExport', {
      endpoint: `${receiver.url}/v1/traces`,
      enabled: true,
      headers: [{ name: 'Authorization', value: secret }],
    })
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    cleanups.push(() => log.mockRestore())
    const jobId = await runScripted(engine, dispatch)
    await receiver.waitForRequests(1)
    await vi.waitFor(async () => {
      const view = await dispatch('getTraceExport', {})
      expect(view.ok && (view.value as { last_send: unknown }).last_send).toMatchObject({ job_id: jobId, ok: false })
    })
    const view = (await dispatch('getTraceExport', {})) as { ok: true; value: { last_send: { message: string } } }
    expect(view.value.last_send.message).toBe(
      `trace not sent: OTLP export to ${receiver.url}/v1/traces failed: HTTP 401 Unauthorized (status 401)`,
    )
    const jobs = (await dispatch('listJobs', {})) as { ok: true; value: { jobs: { id: string; status: string }[] } }
    expect(jobs.value.jobs.find((job) => job.id === jobId)?.status).toBe('completed')
    const lines = log.mock.calls.map((call) => String(call[0]))
    expect(lines).toContain(`arbor: job ${jobId}: ${view.value.last_send.message}`)
    expect(lines.join('\n')).not.toContain(secret)
  }, 60_000)

  it('sends nothing when the setting is off, nor for an imported trace', async () => {
    const receiver = await startOtlpReceiver()
    cleanups.push(() => receiver.close())
    const first = makeEngine()
    await first.dispatch('setTraceExport', { endpoint: receiver.url, enabled: false, headers: [] })
    const jobId = await runScripted(first.engine, first.dispatch)
    const trace = path.join(first.dir, 'trace.jsonl')
    await first.engine.exportJsonl(jobId, trace)
    await first.engine.close()

    const second = makeEngine()
    await second.dispatch('setTraceExport', { endpoint: receiver.url, enabled: true, headers: [] })
    expect(second.engine.importTrace(trace)).toMatchObject({ job_id: jobId, existing: false })
    await second.engine.close()
    expect(receiver.requests).toHaveLength(0)
  }, 60_000)
})

describe('the trace export setting', () => {
  it('keeps header values write-only: listed without a value keeps the stored one, left out deletes it', async () => {
    const { dispatch, keyFile } = makeEngine()
    const set = (input: unknown) => dispatch('setTraceExport', input)
    await set({
      endpoint: 'https://cloud.langfuse.com/api/public/otel/v1/traces',
      enabled: true,
      headers: [
        { name: 'Authorization', value: secret },
        { name: 'x-team', value: 'blue-team' },
      ],
    })
    const kept = await set({
      endpoint: 'https://cloud.langfuse.com/api/public/otel/v1/traces',
      enabled: true,
      headers: [{ name: 'Authorization' }],
    })
    expect(kept).toMatchObject({ ok: true, value: { headers: [{ name: 'Authorization', set: true }] } })
    const keys = readFileSync(keyFile, 'utf8')
    expect(keys).toContain(secret)
    expect(keys).not.toContain('blue-team')

    // Refused requests change nothing.
    expect(await set({ endpoint: 'ftp://example.com', enabled: true, headers: [] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    })
    expect(await set({ endpoint: '', enabled: true, headers: [] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    expect(await set({ endpoint: 'http://localhost:4318', enabled: true, headers: [{ name: 'x-new' }] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: 'header x-new has no value yet' },
    })
    expect(await set({ endpoint: 'http://localhost:4318', enabled: true, headers: [{ name: 'Bad Name', value: 'x' }] })).toMatchObject({
      ok: false,
    })
    expect(await set({ endpoint: 'http://localhost:4318', enabled: true, headers: [{ name: 'a', value: 'x\ny' }] })).toMatchObject({
      ok: false,
    })
    expect(
      await set({
        endpoint: 'http://localhost:4318',
        enabled: true,
        headers: [
          { name: 'A', value: '1' },
          { name: 'a', value: '2' },
        ],
      }),
    ).toMatchObject({ ok: false })
    expect((await dispatch('getTraceExport', {})) as unknown).toMatchObject({
      ok: true,
      value: { endpoint: 'https://cloud.langfuse.com/api/public/otel/v1/traces', enabled: true },
    })

    // A stored value goes only to the host it was entered for.
    expect(await set({ endpoint: 'https://evil.example/v1/traces', enabled: true, headers: [{ name: 'Authorization' }] })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_request',
        message:
          'the value of header Authorization was saved for https://cloud.langfuse.com: enter it again to send it to https://evil.example',
      },
    })
    expect(
      await set({ endpoint: 'https://cloud.langfuse.com/api/public/otel', enabled: false, headers: [{ name: 'Authorization' }] }),
    ).toMatchObject({ ok: true })

    const cleared = await set({ endpoint: '', enabled: false, headers: [] })
    expect(cleared).toEqual({ ok: true, value: { endpoint: null, url: null, enabled: false, headers: [], last_send: null } })
    expect(readFileSync(keyFile, 'utf8')).not.toContain(secret)
  })
})
