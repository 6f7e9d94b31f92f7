import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../engine'
import { startServer, type RunningServer } from '../../serve/server'
import { FileKeyStore } from '../../settings/key-store'
import { testAgentHost } from '../../supervisor/testing'
import { useCleanups } from '../../testing/cleanups'

/**
 * A Claude Code session uploaded through `serve` (POST /import, as the browser's Open trace… and
 * drop do): told apart from an Arbor trace by its first line, converted by the real engine, with
 * the engine's known keys taken out. A 1.0.x session holds its subagents inline, so the upload
 * alone gives the whole tree.
 */
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const inline = readFileSync(path.join(fixtures, 'v1-0-inline/1c4f7a2d-8e3b-4d6c-b9a1-5f0e2c8d7a64.jsonl'), 'utf8')
const key = 'sk-ant-api03-UPLOAD-TEST-KEY-987654321'

const { cleanups, tempDir } = useCleanups('arbor-session-upload-')

async function serve(): Promise<{ server: RunningServer; engine: ReturnType<typeof createEngine> }> {
  const dir = tempDir()
  const rendererDir = path.join(dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Arbor test page</title>\n')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: { ANTHROPIC_API_KEY: key },
  })
  cleanups.push(() => engine.close())
  const server = await startServer({ engine, rendererDir })
  cleanups.push(() => server.close())
  return { server, engine }
}

function upload(server: RunningServer, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: `/import?token=${server.token}`,
        headers: { 'content-type': 'application/x-ndjson' },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }))
        response.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

describe('POST /import of a Claude Code session', () => {
  it('stores the whole tree of an inline session, reports what it skipped, and leaves no known key in it', async () => {
    const { server, engine } = await serve()
    const reply = await upload(server, inline.replace('Review the shop', `Review the shop (${key})`))
    expect(reply.status).toBe(200)
    expect(reply.json).toMatchObject({
      job_id: 'job_cc_1c4f7a2d-8e3b-4d6c-b9a1-5f0e2c8d7a64',
      existing: false,
      format: 'claude-code',
      skipped: { 'some-future-type': 1, malformed: 1 },
    })
    const { job, agents } = await engine.handlers.getTree({ job_id: 'job_cc_1c4f7a2d-8e3b-4d6c-b9a1-5f0e2c8d7a64' })
    expect(agents).toHaveLength(5)
    expect(job).toMatchObject({ imported: true, task: 'Review the shop ([redacted key]): prices and stock.' })
    // Priced from the engine's table: Sonnet 4 (claude-sonnet-4-20250514) has a price, so the job has a cost.
    expect(job.cost_usd).toBeGreaterThan(0)
    const again = await upload(server, inline)
    expect(again.json).toMatchObject({ existing: true, events: 0 })
  })

  it('refuses a file that is neither format with 400, and stores nothing', async () => {
    const { server, engine } = await serve()
    const reply = await upload(server, '{"level":"info","msg":"not a session"}\n')
    expect(reply.status).toBe(400)
    expect(String((reply.json.error as { message: string }).message)).toContain('neither an Arbor trace')
    expect((await engine.handlers.listJobs({})).jobs).toHaveLength(0)
  })
})
