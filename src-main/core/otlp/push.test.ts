import { readFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { exportJob } from '../store/export'
import { otlpFormat } from './otlp-json'
import { childId, jobId, rootId, sampleJob } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { tracesUrl } from '../api/otlp-endpoint'
import { pushJob } from './push'
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './testing/otlp-receiver'
import { spawnJobEvents, storeJob } from './testing/spawn-fixture'

const attribute = (span: ReceivedSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value
const secret = 'Basic c2VjcmV0LXRva2VuLTEyMzQ1'

describe('pushing a job to an OTLP/HTTP collector', () => {
  const tempDir = useTempDir()
  let receiver: OtlpReceiver | null = null
  afterEach(async () => {
    await receiver?.close()
    receiver = null
  })

  it('sends protobuf with the given headers, the same spans as the JSON export, subagents under their task call', async () => {
    receiver = await startOtlpReceiver()
    const db = storeJob(tempDir(), sampleJob(), spawnJobEvents())
    const result = await pushJob(db, jobId, {
      endpoint: `${receiver.url}/v1/traces`,
      headers: { Authorization: secret, 'x-langfuse-ingestion-version': '4' },
      batchSpans: 3,
    })
    const file = join(tempDir(), 'trace.otlp.json')
    await exportJob(db, jobId, file, otlpFormat())
    db.close()

    expect(result.spans).toBe(8)
    // Batches of 3: memory holds one batch, not the trace.
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3)
    for (const request of receiver.requests) {
      expect(request).toMatchObject({ method: 'POST', path: '/v1/traces', decodeError: null })
      expect(request.headers['content-type']).toBe('application/x-protobuf')
      expect(request.headers.authorization).toBe(secret)
      expect(request.headers['x-langfuse-ingestion-version']).toBe('4')
    }
    const received = receiver.spans()
    expect(received).toHaveLength(8)

    // Same ids, names, kinds, times, statuses and parent links as the file export.
    const fileSpans: ReceivedSpan[] = JSON.parse(readFileSync(file, 'utf8')).resourceSpans[0].scopeSpans[0].spans
    const shape = (span: ReceivedSpan) => [
      span.spanId,
      span.parentSpanId || null,
      span.name,
      span.kind,
      span.startTimeUnixNano,
      span.endTimeUnixNano,
      span.status?.code ?? 0,
    ]
    expect(received.map(shape).sort()).toEqual(fileSpans.map(shape).sort())
    expect(new Set(received.map((span) => span.traceId))).toEqual(new Set([fileSpans[0]!.traceId]))

    const agent = (id: string) => received.find((span) => attribute(span, 'gen_ai.agent.id')?.stringValue === id)!
    const task = received.find((span) => span.name === 'execute_tool task')!
    expect(task.parentSpanId).toBe(agent(rootId).spanId)
    expect(agent(childId).parentSpanId).toBe(task.spanId)
    expect(attribute(agent(childId), 'gen_ai.provider.name')).toEqual({ stringValue: 'scripted' })
    expect(attribute(agent(childId), 'gen_ai.usage.input_tokens')).toEqual({ intValue: '800' })
    const workflow = received.find((span) => span.name === 'invoke_workflow arbor')!
    expect(attribute(workflow, 'gen_ai.operation.name')).toEqual({ stringValue: 'invoke_workflow' })
    expect(attribute(workflow, 'arbor.cost_usd')).toEqual({ doubleValue: 0.875 })
    const resource = (receiver.requests[0]!.decoded!.resourceSpans as { resource: { attributes: { key: string; value: unknown }[] } }[])[0]!
      .resource
    expect(resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'arbor' } })
  })

  it('fails with the endpoint and the HTTP status when the collector refuses, and never shows a header value', async () => {
    receiver = await startOtlpReceiver()
    receiver.respondWith(401)
    const db = storeJob(tempDir(), sampleJob(), spawnJobEvents())
    const failure = await pushJob(db, jobId, { endpoint: receiver.url, headers: { Authorization: secret } }).catch((error: Error) => error)
    db.close()
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toBe(`OTLP export to ${receiver.url}/v1/traces failed: HTTP 401 Unauthorized (status 401)`)
    expect((failure as Error).message).not.toContain(secret)
  })

  it('sends no known secret in a span, and shows neither a header value nor a known secret a collector echoes', async () => {
    const stored = 'stored-anthropic-key-4d1f9a7c2e8b'
    receiver = await startOtlpReceiver()
    const job = sampleJob({ task: `deploy with ${stored}` })
    const db = storeJob(tempDir(), job, spawnJobEvents(job))
    await pushJob(db, jobId, { endpoint: receiver.url, secrets: [stored] })
    const workflow = receiver.spans().find((span) => span.name === 'invoke_workflow arbor')!
    expect(attribute(workflow, 'arbor.job.task')).toEqual({ stringValue: 'deploy with [redacted key]' })

    const echo = createHttpServer((request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' })
      response.end(`refused ${request.headers.authorization} for ${stored}`)
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    const { port } = echo.address() as { port: number }
    const failure = await pushJob(db, jobId, {
      endpoint: `http://127.0.0.1:${port}`,
      headers: { Authorization: secret },
      secrets: [stored],
    }).catch((error: Error) => error)
    db.close()
    echo.close()
    const message = (failure as Error).message
    expect(message).toContain('HTTP 400')
    expect(message).toContain('refused [redacted key] for [redacted key]')
    expect(message).not.toContain(stored)
    expect(message).not.toContain(secret.split(' ')[1])
  })

  it('gives up on a collector that keeps answering 503 when the timeout runs out', async () => {
    receiver = await startOtlpReceiver()
    receiver.respondWith(503)
    const db = storeJob(tempDir(), sampleJob(), spawnJobEvents())
    const failure = await pushJob(db, jobId, { endpoint: receiver.url, timeoutMs: 1500 }).catch((error: Error) => error)
    db.close()
    expect((failure as Error).message).toBe(
      `OTLP export to ${receiver.url}/v1/traces failed: the collector kept answering with a retryable status (429, 502, 503 or 504) for 1.5 s`,
    )
    // The exporter retried before giving up.
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2)
  })

  it('fails naming the endpoint when nothing listens there', async () => {
    const port = await freePort()
    const db = storeJob(tempDir(), sampleJob(), spawnJobEvents())
    const started = Date.now()
    const failure = await pushJob(db, jobId, { endpoint: `http://127.0.0.1:${port}/v1/traces`, timeoutMs: 1500 }).catch(
      (error: Error) => error,
    )
    db.close()
    expect((failure as Error).message).toBe(`OTLP export to http://127.0.0.1:${port}/v1/traces failed: cannot connect (ECONNREFUSED)`)
    expect(Date.now() - started).toBeLessThan(6000)
  })

  it('fails after the timeout when the collector never answers', async () => {
    const silent = createHttpServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    const db = storeJob(tempDir(), sampleJob(), spawnJobEvents())
    const failure = await pushJob(db, jobId, { endpoint: `http://127.0.0.1:${port}`, timeoutMs: 800 }).catch((error: Error) => error)
    db.close()
    silent.closeAllConnections()
    silent.close()
    expect((failure as Error).message).toBe(`OTLP export to http://127.0.0.1:${port}/v1/traces failed: no answer within 0.8 s`)
  })
})

describe('the traces URL', () => {
  it('keeps a full URL and adds /v1/traces to a bare base URL', () => {
    expect(tracesUrl('https://cloud.langfuse.com/api/public/otel/v1/traces')).toBe('https://cloud.langfuse.com/api/public/otel/v1/traces')
    expect(tracesUrl('http://localhost:4318')).toBe('http://localhost:4318/v1/traces')
    expect(tracesUrl('http://localhost:6006/')).toBe('http://localhost:6006/v1/traces')
    expect(() => tracesUrl('localhost:4318')).toThrow(/not an http/)
    expect(() => tracesUrl('not a url')).toThrow(/not a URL/)
    expect(() => tracesUrl('https://user:pw@example.com/v1/traces')).toThrow(/credentials in a header/)
  })
})

/** A port nothing listens on: bound, then released. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
