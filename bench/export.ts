/**
 * Export benchmark. Speed: exportJobJsonl of a 100k-event job against a bare iterate-and-write,
 * one better-sqlite3 statement iterating the same rows, SQLite building each line
 * (traceEventLineSql: half the CPU of building it in JS with traceEventLine), written to a file in
 * 64 KiB writes; best CPU time of `rounds` runs each, in turn. The export does less than that
 * loop: SQLite joins a chunk of lines and hands them over as bytes (export.ts, writeJoined).
 * Memory: peak RSS of a process that only opens the database and exports it, at 100k and at 1M
 * events, each size in its own child process so the figure is that export's alone.
 * Run: node --import tsx bench/export.ts [rounds]
 * (Internally also `--build <db> <events>` and `--export <db>`, the child processes.)
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src-main/core/store/database'
import { exportJobJsonl, traceEventLineSql } from '../src-main/core/store/export'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import { record } from './results'
import { job } from './store-workload'

const jobId = 'job_export_bench'
const text = 'The export streams a job as JSONL, a chunk of rows at a time, respecting backpressure. '.repeat(4)

/** A database holding one job of `count` events (tool results of 40 agents), inserted directly. */
function build(file: string, count: number): void {
  const db = openDatabase(file)
  new TraceWriter(db).createJob({ ...job, id: jobId, task: 'export benchmark', status: 'completed' })
  const insert = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const started = Date.parse('2025-03-01T10:00:00.000Z')
  db.transaction(() => {
    for (let index = 0; index < count; index++) {
      const data = { call_id: `c${index}`, name: 'read_file', ok: true, output: text, truncated: false, duration_ms: 2 }
      insert.run(jobId, `agent_${index % 40}`, 'agent_0', 1, 'tool.result', new Date(started + index).toISOString(), JSON.stringify(data))
    }
  })()
  db.close()
}

/** CPU milliseconds (user + system, all of this process's threads) of `run`. */
async function cpuTime(run: () => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage()
  await run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/** The floor: one iterate over the job's rows, the same lines built by SQLite, 64 KiB synchronous writes. */
function bareExport(dbFile: string, out: string): void {
  const db = openDatabase(dbFile)
  const fd = openSync(out, 'w')
  let buffer = ''
  const lines = db.prepare<[string], string>(`SELECT ${traceEventLineSql('seq')} FROM events WHERE job_id = ? ORDER BY seq`).pluck()
  for (const line of lines.iterate(jobId)) {
    buffer += line
    if (buffer.length >= 65536) {
      writeSync(fd, buffer)
      buffer = ''
    }
  }
  writeSync(fd, buffer)
  closeSync(fd)
  db.close()
}

async function exportFile(dbFile: string, out: string): Promise<number> {
  const db = openDatabase(dbFile)
  try {
    return await exportJobJsonl(db, jobId, out)
  } finally {
    db.close()
  }
}

/** Runs this file as a child with `args`; returns what it printed. */
const child = (...args: string[]): string =>
  execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })

async function main(): Promise<void> {
  const mode = process.argv[2]
  if (mode === '--build') return build(process.argv[3]!, Number(process.argv[4]))
  if (mode === '--export') {
    const lines = await exportFile(process.argv[3]!, join(process.argv[4]!))
    process.stdout.write(JSON.stringify({ lines, peakRss: process.resourceUsage().maxRSS * 1024 }))
    return
  }
  const rounds = Number(mode ?? 3)
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-export-'))
  try {
    const small = join(dir, 'small.db')
    const large = join(dir, 'large.db')
    child('--build', small, '100000')
    child('--build', large, '1000000')

    let bare = Infinity
    let exported = Infinity
    for (let round = 0; round < rounds; round++) {
      bare = Math.min(bare, await cpuTime(() => bareExport(small, join(dir, 'bare.jsonl'))))
      exported = Math.min(exported, await cpuTime(() => exportFile(small, join(dir, 'export.jsonl'))))
    }
    console.log(`export bench: 100,000 events, best of ${rounds} rounds by CPU time, node ${process.version}`)
    console.log('baseline: one iterate() over the same rows, the same lines built by SQLite, 64 KiB writeSync')
    record({
      name: 'export.jsonl',
      value: 100_000 / (exported / 1000),
      unit: 'events/cpu-s',
      baseline: 100_000 / (bare / 1000),
      goal: { atLeast: 0.9 },
    })

    const peak = (file: string) => (JSON.parse(child('--export', file, join(dir, 'rss.jsonl'))) as { peakRss: number }).peakRss / 2 ** 20
    const smallRss = peak(small)
    const largeRss = peak(large)
    console.log('peak RSS of a process that opens the database and exports the job, one process per size')
    record({ name: 'export.peak_rss_1m_vs_100k', value: largeRss, unit: 'MiB', baseline: smallRss, goal: { atMost: 1.1 } })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
