import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../core/store/database'
import { exportJobJsonl } from '../core/store/export'
import { jobId, sampleJob, sampleJobEvents } from '../core/store/testing/job-fixture'
import { TraceWriter } from '../core/store/trace-writer'

/** `arbor import` and `arbor open`, through the real CLI process, on an exported trace. */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const exec = promisify(execFile)
const arbor = (args: string[]) => exec(process.execPath, ['--import', 'tsx', cli, ...args], { timeout: 60_000 })
const failure = (args: string[]) =>
  arbor(args).then(
    () => ({ code: 0, stderr: '', stdout: '' }),
    (error: { code: number; stderr: string; stdout: string }) => error,
  )

/** A finished job's trace, written by the store's own export. */
async function demoTrace(): Promise<{ dir: string; trace: string; lines: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-import-'))
  const db = openDatabase(path.join(dir, 'source.db'))
  const writer = new TraceWriter(db)
  writer.createJob(sampleJob())
  for (const event of sampleJobEvents()) writer.append(event)
  writer.flush()
  const trace = path.join(dir, 'trace.jsonl')
  await exportJobJsonl(db, jobId, trace)
  db.close()
  return { dir, trace, lines: readFileSync(trace, 'utf8').trimEnd().split('\n') }
}

describe('arbor import and open', () => {
  it('import prints the job id; a second import says it is already there; export gives the same lines', async () => {
    const { dir, trace, lines } = await demoTrace()
    const db = path.join(dir, 'viewer.db')
    const first = await arbor(['import', trace, '--db', db])
    expect(first.stdout.trim()).toBe(jobId)
    expect(first.stderr).toContain(`imported ${lines.length - 1} events`)
    const second = await arbor(['import', trace, '--db', db])
    expect(second.stderr).toContain('already in')
    const again = path.join(dir, 'again.jsonl')
    await arbor(['export', '--db', db, '--job', jobId, '--out', again])
    const blank = (line: string) => line.replace(/"exported_at":"[^"]+"/, '')
    expect(readFileSync(again, 'utf8').trimEnd().split('\n').map(blank)).toEqual(lines.map(blank))
  }, 60_000)

  it('export takes a part of the job id (a unique start, or the short id the UI shows) and says when a part matches no job', async () => {
    const { dir, lines } = await demoTrace()
    const db = path.join(dir, 'viewer.db')
    await arbor(['import', path.join(dir, 'trace.jsonl'), '--db', db])
    const out = path.join(dir, 'by-part.jsonl')
    const exported = await arbor(['export', '--db', db, '--job', jobId.slice(-4), '--out', out])
    expect(exported.stdout).toContain(`exported job ${jobId}: ${lines.length} lines`)
    const unknown = await failure(['export', '--db', db, '--job', 'beef', '--out', out])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('arbor: no job id starts or ends with beef')
  }, 60_000)

  it('import of a broken file exits 1 naming the line, and stores nothing', async () => {
    const { dir, lines } = await demoTrace()
    const broken = path.join(dir, 'broken.jsonl')
    writeFileSync(broken, [...lines.slice(0, 4), 'not json', ...lines.slice(5)].join('\n'))
    const db = path.join(dir, 'viewer.db')
    const result = await failure(['import', broken, '--db', db])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Trace line 5: not valid JSON')
    expect(result.stdout).toBe('')
    const none = await failure(['export', '--db', db, '--last', '--out', path.join(dir, 'out.jsonl')])
    expect(none.stderr).toContain('the database holds no jobs')
    const missing = await failure(['import', path.join(dir, 'nope.jsonl'), '--db', db])
    expect(missing.code).toBe(2)
  }, 60_000)

  it('open imports the trace and serves the UI with that job selected', async () => {
    const { dir, trace, lines } = await demoTrace()
    const built = existsSync(fileURLToPath(new URL('../../out/renderer/index.html', import.meta.url)))
    const child = spawn(process.execPath, ['--import', 'tsx', cli, 'open', trace, '--db', path.join(dir, 'viewer.db')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    child.stdout.on('data', (chunk: Buffer) => (output += chunk))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk))
    if (!built) {
      // Without `npm run build` there is no UI to serve, and it says so.
      expect(await exited).toBe(2)
      expect(output).toContain('the UI is not built')
      return
    }
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(output)), 30_000)
      child.stdout.on('data', () => {
        const match = /Open: (\S+)/.exec(output)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
    })
    expect(new URL(url).searchParams.get('job')).toBe(jobId)
    const page = await fetch(url)
    expect(page.status).toBe(200)
    const exported = await fetch(new URL(`/export/${jobId}.jsonl?token=${new URL(url).searchParams.get('token')}`, url))
    expect((await exported.text()).trimEnd().split('\n')).toHaveLength(lines.length)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  }, 60_000)

  it('import of a Claude Code session stores its tree, prints the job id and what it skipped', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-import-'))
    const session = fileURLToPath(
      new URL('../core/import/claude-code/fixtures/v2-1-subagents/3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13.jsonl', import.meta.url),
    )
    const db = path.join(dir, 'viewer.db')
    const first = await arbor(['import', session, '--db', db])
    const sessionJob = 'job_cc_3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13'
    expect(first.stdout.trim()).toBe(sessionJob)
    expect(first.stderr).toMatch(/imported the Claude Code session as \d+ events of job job_cc_3a0c5e7d/)
    expect(first.stderr).toContain('skipped 1 malformed, 1 permission-mode, 1 system, 1 weird-new-entry lines')
    expect((await arbor(['import', session, '--db', db])).stderr).toContain('already in')
    // The stored job exports as an Arbor trace with every agent of the session: the root and five subagents.
    const out = path.join(dir, 'session.jsonl')
    await arbor(['export', '--db', db, '--job', sessionJob, '--out', out])
    const starts = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .filter((line) => line.includes('"type":"agent.start"'))
    expect(starts).toHaveLength(6)
    // A key of the environment that turns up in a session is not stored.
    const key = 'sk-ant-api03-CLI-TEST-KEY-0123456789'
    const keyed = path.join(dir, 'keyed', 'session.jsonl')
    mkdirSync(path.dirname(keyed))
    writeFileSync(
      keyed,
      readFileSync(session, 'utf8')
        .replace('Survey the shop repo', `Survey the shop repo with ${key}`)
        .replaceAll('3a0c5e7d-21f4', '4b1d6f8e-32a5'),
    )
    await exec(process.execPath, ['--import', 'tsx', cli, 'import', keyed, '--db', db], {
      timeout: 60_000,
      env: { ...process.env, ANTHROPIC_API_KEY: key },
    })
    const keyedOut = path.join(dir, 'keyed.jsonl')
    await arbor(['export', '--db', db, '--job', 'job_cc_4b1d6f8e-32a5-4b1a-9c55-0e2d7f6a8b13', '--out', keyedOut])
    const keyedTrace = readFileSync(keyedOut, 'utf8')
    expect(keyedTrace).toContain('Survey the shop repo with [redacted key]')
    expect(keyedTrace).not.toContain(key)
    const other = path.join(dir, 'other.jsonl')
    writeFileSync(other, '{"kind":"log"}\n')
    const refused = await failure(['import', other, '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('neither an Arbor trace')
  }, 60_000)
})
