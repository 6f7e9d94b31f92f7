/**
 * Store benchmark: events/second of (a) a bare better-sqlite3 insert loop (baseline), (b) the
 * TraceWriter with its projections, (b') the same for a job whose settings carry the load job's
 * 1.6 MB script (a batch must not cost more for it); each as a ratio to (a). (c) is (a)
 * committing every 1,000 rows, as the writer does, and the WAL pages each writes (a
 * deterministic count): that shows what committing in batches costs apart from our own work.
 * Then import: (d) a bare loop that reads an exported file, parses each line and inserts it (the
 * floor of any import), and (e) importTraceFile, which also validates every line and projects the tree, as a
 * ratio to (d). The machine is shared and noisy, so (a), (b) and (b') run in turn `rounds` times,
 * each into a new database, and the best time of each counts. Export is bench/export.ts.
 * Run: node --import tsx bench/store.ts [events] [rounds]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type SqliteDatabase } from '../src-main/core/store/database'
import { exportJobJsonl } from '../src-main/core/store/export'
import { importTraceFile, readLinesSync } from '../src-main/core/import/import-job'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import { defaultLoadShape, loadJobSettings } from '../src-main/core/testing/load-job'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import type { Job } from '../src-main/core/trace/model'
import { record } from './results'
import { agentsPerJob, bareInsert, job, jobId, makeEvents, time } from './store-workload'

const eventCount = Number(process.argv[2] ?? 100_000)
const rounds = Number(process.argv[3] ?? 3)
/** Pages a write left in the WAL of `db`, opened with checkpoints off so none were moved out. */
function walPages(db: SqliteDatabase): number {
  const pageSize = db.pragma('page_size', { simple: true }) as number
  return (statSync(`${db.name}-wal`).size - 32) / (pageSize + 24)
}

/** Appends every event to a new writer for `target` (batches of 1000 committed with projections), then flushes. */
function writeAll(db: SqliteDatabase, target: Job, events: NewTraceEvent[]): { cpuMs: number; commits: number } {
  const writer = new TraceWriter(db)
  writer.createJob(target)
  let commits = 0
  writer.onCommit(() => commits++)
  const written = time(() => {
    for (const event of events) writer.append(event)
    writer.flush()
  })
  writer.close()
  return { cpuMs: written.cpuMs, commits }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'))
  try {
    const events = makeEvents(eventCount)
    const scriptedSettings = loadJobSettings(defaultLoadShape)
    let files = 0
    const newDatabase = () => openDatabase(join(dir, `round-${files++}.db`))
    const best = { bare: Infinity, batched: Infinity, writer: Infinity, scripted: Infinity }
    let commits = 0
    const bareDatabase = () => {
      const db = newDatabase()
      new TraceWriter(db).createJob(job)
      return db
    }
    for (let round = 0; round < rounds; round++) {
      // (a) baseline: the same rows, prepared INSERT in one transaction, same schema and pragmas.
      const bare = bareDatabase()
      best.bare = Math.min(best.bare, time(() => bareInsert(bare, events, Infinity)).cpuMs)
      bare.close()
      // (c) the same, committing every 1,000 rows.
      const batched = bareDatabase()
      best.batched = Math.min(best.batched, time(() => bareInsert(batched, events, 1000)).cpuMs)
      batched.close()

      // (b) the writer; (b') the writer for a job with the load job's script in its settings.
      const db = newDatabase()
      const written = writeAll(db, job, events)
      db.close()
      best.writer = Math.min(best.writer, written.cpuMs)
      commits = written.commits
      const scripted = newDatabase()
      best.scripted = Math.min(best.scripted, writeAll(scripted, { ...job, settings: scriptedSettings }, events).cpuMs)
      scripted.close()
    }

    // WAL pages written by (a), (c) and (b), checkpoints off.
    const pages = (write: (db: SqliteDatabase) => void): number => {
      const db = bareDatabase()
      db.pragma('wal_autocheckpoint = 0')
      write(db)
      const count = walPages(db)
      db.close()
      return count
    }
    const walOneTransaction = pages((db) => bareInsert(db, events, Infinity))
    const walBatched = pages((db) => bareInsert(db, events, 1000))
    const walWriter = pages((db) => {
      const writer = new TraceWriter(db)
      for (const event of events) writer.append(event)
      writer.flush()
    })

    // A file to import: the writer's job, exported.
    const source = newDatabase()
    writeAll(source, job, events)
    const file = join(dir, 'trace.jsonl')
    const lines = await exportJobJsonl(source, jobId, file)
    source.close()

    // (d) the import floor: read the file line by line, parse, insert, one transaction.
    const floor = newDatabase()
    new TraceWriter(floor).createJob(job)
    const floorInsert = floor.prepare(
      'INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data, source_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    let header = true
    const bareImport = time(() =>
      floor.transaction(() =>
        readLinesSync(file, (line) => {
          if (header) return void (header = false)
          const event = JSON.parse(line) as NewTraceEvent & { seq: number }
          floorInsert.run(
            event.job_id,
            event.agent_id,
            event.parent_id,
            event.depth,
            event.type,
            event.ts,
            JSON.stringify(event.data),
            event.seq,
          )
        }),
      )(),
    )
    floor.close()

    // (e) importTraceFile: the same, plus each line checked against the trace schema and the tree projected.
    const target = newDatabase()
    const imported = time(() => importTraceFile(target, file))
    target.close()

    const rate = (count: number, ms: number) => (count / ms) * 1000
    const baseRate = rate(events.length, best.bare)
    console.log(
      `store bench: ${events.length} events, ${agentsPerJob} agents, best of ${rounds} rounds by CPU time, node ${process.version}`,
    )
    console.log(`baseline (a): a bare better-sqlite3 insert loop of the same rows, 1 transaction; the writer made ${commits} commits`)
    record({ name: 'store.bare_insert', value: baseRate, unit: 'events/cpu-s', baseline: null })
    record({
      name: 'store.writer',
      value: rate(events.length, best.writer),
      unit: 'events/cpu-s',
      baseline: baseRate,
      goal: { atLeast: 0.9 },
    })
    record({
      name: 'store.writer_with_script',
      value: rate(events.length, best.scripted),
      unit: 'events/cpu-s',
      baseline: baseRate,
      goal: { atLeast: 0.9 },
    })
    console.log('(c): (a) committing every 1,000 rows, as the writer does; WAL pages written, checkpoints off')
    record({
      name: 'store.bare_insert_commit_per_1000',
      value: rate(events.length, best.batched),
      unit: 'events/cpu-s',
      baseline: baseRate,
    })
    record({
      name: 'store.writer_vs_same_commits',
      value: rate(events.length, best.writer),
      unit: 'events/cpu-s',
      baseline: rate(events.length, best.batched),
    })
    record({ name: 'store.wal_pages.commit_per_1000', value: walBatched, unit: 'pages', baseline: walOneTransaction })
    record({ name: 'store.wal_pages.writer', value: walWriter, unit: 'pages', baseline: walOneTransaction })
    const importFloorRate = rate(lines - 1, bareImport.cpuMs)
    console.log('baseline (d): read the exported file, JSON.parse each line, insert it, 1 transaction')
    record({ name: 'store.import', value: rate(imported.value.events, imported.cpuMs), unit: 'events/cpu-s', baseline: importFloorRate })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
