/**
 * Load benchmark: the job of src-main/core/supervisor/load.test.ts (200 real agent processes, 50
 * at a time, about 100,000 events) end to end, as events/second, against the store alone writing
 * the very rows that job stored, in the same run: (a) a bare better-sqlite3 insert loop in one
 * transaction (the floor), (b) the TraceWriter with its projections. So the ratio (c)/(b) is what
 * the processes, IPC, supervisor and model calls cost on top of the store. Reports the main
 * process's peak RSS and prints its CPU time too. Run: node --import tsx bench/load.ts [turns per agent]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../src-main/core/store/database'
import { queriesFor } from '../src-main/core/store/queries'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import { defaultLoadShape, runLoadJob } from '../src-main/core/testing/load-job'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import { record } from './results'

const shape = { ...defaultLoadShape, turns: Number(process.argv[2] ?? defaultLoadShape.turns) }
const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-load-'))

function time(run: () => void): number {
  const started = performance.now()
  run()
  return performance.now() - started
}

try {
  const load = await runLoadJob(join(dir, 'load'), shape)
  const source = openDatabase(load.dbFile)
  const queries = queriesFor(source)
  const job = queries.getJob(load.jobId)!
  const rows = source
    .prepare('SELECT type, ts, job_id, agent_id, parent_id, depth, data FROM events WHERE job_id = ? ORDER BY seq')
    .all(load.jobId) as Array<Omit<NewTraceEvent, 'data'> & { data: string }>
  source.close()
  const status = load.heard.jobEnd?.data.status
  if (status !== 'completed') throw new Error(`the load job ended ${String(status)}: ${load.heard.errors.slice(0, 3).join('; ')}`)

  // (a) the floor: the same rows, one prepared INSERT each, one transaction.
  const bare = openDatabase(join(dir, 'bare.db'))
  new TraceWriter(bare).createJob({ ...job, status: 'running', ended_at: null })
  const insert = bare.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const bareMs = time(() =>
    bare.transaction(() =>
      rows.forEach((row) => insert.run(row.job_id, row.agent_id, row.parent_id, row.depth, row.type, row.ts, row.data)),
    )(),
  )
  bare.close()

  // (b) the TraceWriter: every event checked, batched, projected, committed.
  const events = rows.map((row) => ({ ...row, data: JSON.parse(row.data) as unknown }) as NewTraceEvent)
  const db = openDatabase(join(dir, 'writer.db'))
  const writer = new TraceWriter(db)
  writer.createJob({ ...job, status: 'running', ended_at: null })
  const writerMs = time(() => {
    for (const event of events) writer.append(event)
    writer.flush()
  })
  writer.close()
  db.close()

  const rate = (ms: number): number => (rows.length / ms) * 1000
  console.log(
    `load bench: ${shape.agents} agents at concurrency ${shape.concurrency}, ${shape.turns} turns of ${shape.callsPerTurn} list_files each, ` +
      `${rows.length.toLocaleString('en-US')} events, node ${process.version}`,
  )
  console.log('(a) bare insert loop of the same rows, 1 transaction; (b) TraceWriter + projections of them; (c) the job end to end')
  record({ name: 'load.writer', value: rate(writerMs), unit: 'events/s', baseline: rate(bareMs) })
  record({ name: 'load.job_end_to_end', value: rate(load.durationMs), unit: 'events/s', baseline: rate(writerMs) })
  record({ name: 'load.main_peak_rss', value: load.peakRssBytes / 2 ** 20, unit: 'MiB', baseline: null })
  console.log(
    `main process during (c): CPU ${(load.mainCpuMs / 1000).toFixed(1)} s (${((load.mainCpuMs / load.durationMs) * 100).toFixed(0)}% of one core)`,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
