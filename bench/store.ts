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
import { performance } from 'node:perf_hooks'
import { openDatabase, type SqliteDatabase } from '../src-main/core/store/database'
import { exportJobJsonl } from '../src-main/core/store/export'
import { importTraceFile, readLinesSync } from '../src-main/core/import/import-job'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import { defaultLoadShape, loadJobSettings } from '../src-main/core/testing/load-job'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import { defaultSettings, type Job } from '../src-main/core/trace/model'
import { emptyUsage } from '../src-main/core/trace/usage'
import { record } from './results'

const eventCount = Number(process.argv[2] ?? 100_000)
const rounds = Number(process.argv[3] ?? 3)
const agentsPerJob = 40
const jobId = 'job_bench'
const text = 'The module exports a TraceWriter that batches events into one transaction per flush. '.repeat(4)

const job: Job = {
  id: jobId,
  project: '/projects/bench',
  task: 'benchmark',
  settings: defaultSettings({ max_depth: 2, max_concurrent_children: 8 }),
  status: 'running',
  created_at: new Date(0).toISOString(),
  ended_at: null,
  auto_approve: false,
  spawn_paused: false,
  usage: emptyUsage(),
  cost_usd: null,
}

/** A realistic mix: agents starting, then rounds of model call, tool call, tool result, messages. */
function makeEvents(count: number): NewTraceEvent[] {
  const events: NewTraceEvent[] = []
  const usage = { input_tokens: 1800, output_tokens: 120, cache_read_tokens: 1500, cache_write_tokens: 0, reasoning_tokens: 0 }
  const round = (agent: number, index: number): [NewTraceEvent['type'], Record<string, unknown>][] => [
    ['llm.call', { provider: 'scripted', model: 'scripted', usage, cost_usd: 0.001, duration_ms: 800, finish_reason: 'tool_calls' }],
    [
      'message',
      { role: 'assistant', content: text, tool_calls: [{ id: `c${index}`, name: 'read_file', arguments: '{"path":"src/a.ts"}' }] },
    ],
    ['tool.call', { call_id: `c${index}`, name: 'read_file', arguments: { path: 'src/a.ts' } }],
    ['tool.result', { call_id: `c${index}`, name: 'read_file', ok: true, output: text, truncated: false, duration_ms: 2 }],
    ['message', { role: 'tool', content: text, tool_call_id: `c${index}` }],
  ]
  let time = Date.parse('2025-03-01T10:00:00.000Z')
  const push = (agent: number, type: NewTraceEvent['type'], data: Record<string, unknown>) =>
    events.push({
      type,
      ts: new Date((time += 7)).toISOString(),
      job_id: jobId,
      agent_id: `agent_${agent}`,
      parent_id: agent === 0 ? null : 'agent_0',
      depth: agent === 0 ? 0 : 1,
      data,
    } as NewTraceEvent)
  for (let agent = 0; agent < agentsPerJob; agent++) {
    push(agent, 'agent.start', {
      profile: 'general',
      model: 'scripted',
      label: `agent ${agent}`,
      task: text,
      tools: ['read_file'],
      max_steps: 1000,
      context_token_budget: null,
      total_token_budget: null,
    })
  }
  for (let index = 0; events.length < count; index++) {
    const agent = index % agentsPerJob
    for (const [type, data] of round(agent, index)) if (events.length < count) push(agent, type, data)
  }
  return events
}

/** The bare loop: a prepared INSERT of each event's row, committing every `batch` rows (Infinity: one transaction). */
function bareInsert(db: SqliteDatabase, events: NewTraceEvent[], batch: number): void {
  const insert = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const commit = db.transaction((from: number, to: number) => {
    for (let index = from; index < to; index++) {
      const event = events[index]!
      insert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data))
    }
  })
  for (let from = 0; from < events.length; from += batch) commit(from, Math.min(events.length, from + batch))
}

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

/**
 * Wall time and this process's CPU time (user + system) of `run`. The figures use CPU time: on
 * a shared machine wall time mostly measures the other processes; everything timed here is
 * synchronous work in this process (SQLite included), so CPU time is what it costs.
 */
function time<T>(run: () => T): { ms: number; cpuMs: number; value: T } {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const value = run()
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value }
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
