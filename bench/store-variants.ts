/**
 * What was tried to bring the trace writer to 0.9x the bare insert loop, each measured in this run
 * against the bare loop (one prepared INSERT a row, one transaction) into the same schema and
 * pragmas: index shapes on `events`, batch sizes, page sizes, multi-row INSERTs. Each variant runs
 * `rounds` times in turn with the others, each round into new files; the best CPU time counts.
 * Prints the writer / bare ratio of each, and each against the bare loop into today's schema
 * (what the variant gains in absolute terms). Not part of `npm run bench`: a tool for the next
 * attempt. Run: node --import tsx bench/store-variants.ts [events] [rounds]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openDatabase, type SqliteDatabase } from '../src-main/core/store/database'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import { bareInsert, job, makeEvents, time } from './store-workload'

const eventCount = Number(process.argv[2] ?? 50_000)
const rounds = Number(process.argv[3] ?? 3)

interface Variant {
  name: string
  /** SQL run on the migrated database before anything is written. */
  schema?: string
  pageSize?: number
  maxBatch?: number
  /** Rows per INSERT statement in the bare loop (the floor of a multi-row writer). */
  rowsPerInsert?: number
}

const variants: Variant[] = [
  { name: "today's schema, batches of 1,000" },
  { name: 'no events_by_agent', schema: 'DROP INDEX events_by_agent' },
  {
    name: 'no events_by_agent; events_by_job (job_id, seq, agent_id)',
    schema: 'DROP INDEX events_by_agent; DROP INDEX events_by_job; CREATE INDEX events_by_job ON events (job_id, seq, agent_id)',
  },
  {
    name: 'events_by_agent covering (agent_id, seq, type, ts)',
    schema: 'DROP INDEX events_by_agent; CREATE INDEX events_by_agent ON events (agent_id, seq, type, ts)',
  },
  {
    name: "events_by_agent partial (WHERE type <> 'message')",
    schema: "DROP INDEX events_by_agent; CREATE INDEX events_by_agent ON events (agent_id, seq) WHERE type <> 'message'",
  },
  { name: 'batches of 2,000', maxBatch: 2000 },
  { name: 'batches of 5,000', maxBatch: 5000 },
  { name: '8 KiB pages', pageSize: 8192 },
  { name: '16 KiB pages', pageSize: 16384 },
  { name: 'bare loop with 20-row INSERTs (floor of a multi-row writer)', rowsPerInsert: 20 },
  { name: 'no events_by_agent, 8 KiB pages', schema: 'DROP INDEX events_by_agent', pageSize: 8192 },
  { name: 'no events_by_agent, batches of 5,000', schema: 'DROP INDEX events_by_agent', maxBatch: 5000 },
  { name: 'no events_by_agent, 8 KiB pages, batches of 5,000', schema: 'DROP INDEX events_by_agent', pageSize: 8192, maxBatch: 5000 },
]
const only = process.env.VARIANTS?.split(',').map(Number)
const chosen = only ? variants.filter((_, index) => only.includes(index)) : variants

let files = 0
function database(dir: string, variant: Variant): SqliteDatabase {
  const file = join(dir, `db-${files++}.db`)
  if (variant.pageSize) {
    const raw = new Database(file)
    raw.pragma(`page_size = ${variant.pageSize}`)
    raw.exec('VACUUM')
    raw.close()
  }
  const db = openDatabase(file)
  if (variant.schema) db.exec(variant.schema)
  new TraceWriter(db).createJob(job)
  return db
}

/** The bare loop with `rows` rows per INSERT statement, one transaction. */
function multiRowInsert(db: SqliteDatabase, events: NewTraceEvent[], rows: number): void {
  const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')
  const insert = db.prepare(`INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES ${values}`)
  const one = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const row = (event: NewTraceEvent) => [
    event.job_id,
    event.agent_id,
    event.parent_id,
    event.depth,
    event.type,
    event.ts,
    JSON.stringify(event.data),
  ]
  db.transaction(() => {
    let index = 0
    for (; index + rows <= events.length; index += rows) insert.run(...events.slice(index, index + rows).flatMap(row))
    for (; index < events.length; index++) one.run(...row(events[index]!))
  })()
}

const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-store-variants-'))
try {
  const events = makeEvents(eventCount)
  const best = chosen.map(() => ({ bare: Infinity, writer: Infinity }))
  for (let round = 0; round < rounds; round++) {
    chosen.forEach((variant, index) => {
      const bare = database(dir, variant)
      best[index]!.bare = Math.min(best[index]!.bare, time(() => bareInsert(bare, events, Infinity)).cpuMs)
      bare.close()
      const db = database(dir, variant)
      const cpuMs = variant.rowsPerInsert
        ? time(() => multiRowInsert(db, events, variant.rowsPerInsert!)).cpuMs
        : time(() => {
            const writer = new TraceWriter(db, { maxBatch: variant.maxBatch })
            for (const event of events) writer.append(event)
            writer.flush()
          }).cpuMs
      best[index]!.writer = Math.min(best[index]!.writer, cpuMs)
      db.close()
    })
  }
  const today = best[0]!.bare
  const rate = (ms: number) => Math.round((events.length / ms) * 1000).toLocaleString('en-US')
  console.log(`store variants: ${events.length} events, best of ${rounds} rounds by CPU time, node ${process.version}`)
  console.log('variant | bare loop, events/cpu-s | writer, events/cpu-s | writer / bare (same schema) | writer / bare (today’s schema)')
  chosen.forEach((variant, index) => {
    const { bare, writer } = best[index]!
    console.log(`${variant.name} | ${rate(bare)} | ${rate(writer)} | ${(bare / writer).toFixed(3)} | ${(today / writer).toFixed(3)}`)
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
