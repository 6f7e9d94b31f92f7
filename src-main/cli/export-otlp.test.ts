import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../core/otlp/testing/otlp-receiver'
import { spawnJobEvents, storeJob } from '../core/otlp/testing/spawn-fixture'
import { FileKeyStore, traceHeaderSecret } from '../core/settings/key-store'
import { AppSettings } from '../core/store/app-settings'
import { openDatabase } from '../core/store/database'
import { childId, jobId, rootId, sampleJob } from '../core/store/testing/job-fixture'
import { useCleanups } from '../core/testing/cleanups'

/**
 * `arbor export --otlp-endpoint` and the stored trace export setting through the real CLI
 * process, against a real OTLP/HTTP receiver on 127.0.0.1 that decodes with the official protos.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const { cleanups, tempDir } = useCleanups('arbor-export-otlp-')
const secret = 'Basic bGFuZ2Z1c2Utc2VjcmV0LWtleS0wMTIz'

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

const builtCli = fileURLToPath(new URL('../../bin/arbor.js', import.meta.url))
const built = existsSync(fileURLToPath(new URL('../../out/main/cli.js', import.meta.url)))

/** The CLI from source (tsx), or with `built` the one `npm run build` made, as `arbor` runs it. */
function arbor(args: string[], timeout = 60_000, options: { built?: boolean } = {}): Promise<Outcome> {
  const entry = options.built ? [builtCli] : ['--import', 'tsx', cli]
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entry, ...args],
      { env: { ...process.env, ARBOR_DATA_DIR: tempDir() }, timeout },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
      },
    )
  })
}

async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver()
  cleanups.push(() => started.close())
  return started
}

function sampleDb(): string {
  const dir = tempDir()
  storeJob(dir, sampleJob({ status: 'completed' }), spawnJobEvents()).close()
  return path.join(dir, 'arbor.db')
}

const attribute = (span: ReceivedSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value

describe('arbor export --otlp-endpoint', () => {
  it('pushes the job as OTLP/HTTP protobuf with the headers given, and prints no header value', async () => {
    const collector = await receiver()
    const db = sampleDb()
    const result = await arbor([
      'export',
      '--db',
      db,
      '--last',
      '--otlp-endpoint',
      `${collector.url}/v1/traces`,
      '--header',
      `Authorization=${secret}`,
      '--header',
      'x-project=demo',
    ])
    expect(result).toEqual({
      code: 0,
      stdout: `sent job ${jobId}: 8 spans (OTLP/HTTP protobuf) to ${collector.url}/v1/traces\n`,
      stderr: '',
    })
    expect(collector.requests).toHaveLength(1)
    const [request] = collector.requests
    expect(request!.path).toBe('/v1/traces')
    expect(request!.headers['content-type']).toBe('application/x-protobuf')
    expect(request!.headers.authorization).toBe(secret)
    expect(request!.headers['x-project']).toBe('demo')
    const spans = collector.spans()
    expect(spans).toHaveLength(8)
    const agent = (id: string) => spans.find((span) => attribute(span, 'gen_ai.agent.id')?.stringValue === id)!
    const task = spans.find((span) => span.name === 'execute_tool task')!
    expect(task.parentSpanId).toBe(agent(rootId).spanId)
    expect(agent(childId).parentSpanId).toBe(task.spanId)
    expect(attribute(agent(childId), 'gen_ai.provider.name')).toEqual({ stringValue: 'scripted' })
  }, 90_000)

  it.skipIf(!built)(
    `works the same from the built CLI (bin/arbor.js)${built ? '' : ' — skipped: out/main/cli.js is not built, run npm run build'}`,
    async () => {
      const collector = await receiver()
      const result = await arbor(
        ['export', '--db', sampleDb(), '--last', '--otlp-endpoint', collector.url, '--header', `Authorization=${secret}`],
        60_000,
        { built: true },
      )
      expect(result).toEqual({
        code: 0,
        stdout: `sent job ${jobId}: 8 spans (OTLP/HTTP protobuf) to ${collector.url}/v1/traces\n`,
        stderr: '',
      })
      expect(collector.spans()).toHaveLength(8)
      expect(collector.requests[0]!.headers.authorization).toBe(secret)
      collector.respondWith(403)
      const refused = await arbor(
        ['export', '--db', sampleDb(), '--last', '--otlp-endpoint', collector.url, '--header', `Authorization=${secret}`],
        60_000,
        { built: true },
      )
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr: `arbor: OTLP export to ${collector.url}/v1/traces failed: HTTP 403 Forbidden (status 403)\n`,
      })
    },
    90_000,
  )

  it('adds /v1/traces to a base URL', async () => {
    const collector = await receiver()
    const result = await arbor(['export', '--db', sampleDb(), '--job', jobId, '--otlp-endpoint', collector.url])
    expect(result.code).toBe(0)
    expect(collector.requests.map((request) => request.path)).toEqual(['/v1/traces'])
  }, 90_000)

  it('fails with one line naming the endpoint and the status when the collector answers 401, exit 1', async () => {
    const collector = await receiver()
    collector.respondWith(401)
    const result = await arbor([
      'export',
      '--db',
      sampleDb(),
      '--last',
      '--otlp-endpoint',
      `${collector.url}/v1/traces`,
      '--header',
      `Authorization=${secret}`,
    ])
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `arbor: OTLP export to ${collector.url}/v1/traces failed: HTTP 401 Unauthorized (status 401)\n`,
    })
  }, 90_000)

  it('fails with one line when nothing listens at the endpoint, exit 1, no header value shown', async () => {
    const port = await freePort()
    const result = await arbor([
      'export',
      '--db',
      sampleDb(),
      '--last',
      '--otlp-endpoint',
      `http://127.0.0.1:${port}/v1/traces`,
      '--header',
      `Authorization=${secret}`,
    ])
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `arbor: OTLP export to http://127.0.0.1:${port}/v1/traces failed: cannot connect (ECONNREFUSED)\n`,
    })
  }, 90_000)

  it('refuses bad options with a usage error (exit 2), never echoing a header value', async () => {
    const db = sampleDb()
    const noEndpoint = await arbor([
      'export',
      '--db',
      db,
      '--last',
      '--header',
      `Authorization=${secret}`,
      '--out',
      path.join(tempDir(), 'x.json'),
    ])
    expect(noEndpoint.code).toBe(2)
    expect(noEndpoint.stderr).toContain('arbor: --header goes with --otlp-endpoint')
    const badUrl = await arbor(['export', '--db', db, '--last', '--otlp-endpoint', 'localhost:4318'])
    expect(badUrl.code).toBe(2)
    expect(badUrl.stderr).toContain('is not an http:// or https:// URL')
    const badHeader = await arbor(['export', '--db', db, '--last', '--otlp-endpoint', 'http://127.0.0.1:9', '--header', secret])
    expect(badHeader.code).toBe(2)
    for (const outcome of [noEndpoint, badUrl, badHeader]) expect(outcome.stdout + outcome.stderr).not.toContain(secret.slice(6))
  }, 90_000)
})

describe('arbor run with the trace export setting stored in its database', () => {
  it('sends the finished job once to the stored endpoint with the stored header', async () => {
    const collector = await receiver()
    const dir = tempDir()
    const project = path.join(dir, 'project')
    mkdirSync(project)
    writeFileSync(path.join(project, 'README.md'), '# Project\n')
    const dbFile = path.join(dir, 'arbor.db')
    const db = openDatabase(dbFile)
    new AppSettings(db).saveTraceExport({ endpoint: collector.url, enabled: true, header_names: ['Authorization'] })
    db.close()
    // Where `arbor run --db F` keeps keys: keys.json beside the database.
    new FileKeyStore(path.join(dir, 'keys.json')).set(traceHeaderSecret('Authorization'), secret)

    const result = await arbor(['run', project, '--task', 'map the project', '--provider', 'scripted', '--db', dbFile], 120_000)
    expect(result.code).toBe(0)
    expect(collector.requests).toHaveLength(1)
    expect(collector.requests[0]!.headers.authorization).toBe(secret)
    const spans = collector.spans()
    expect(spans.filter((span) => span.name === 'invoke_workflow arbor')).toHaveLength(1)
    expect(result.stderr).toMatch(
      new RegExp(`arbor: job \\S+: ${spans.length} spans sent to ${collector.url.replace(/\./g, '\\.')}/v1/traces`),
    )
    expect(result.stdout + result.stderr).not.toContain(secret)
  }, 150_000)
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
