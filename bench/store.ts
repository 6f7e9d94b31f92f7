/**
 * Store benchmark: events/second of (a) a bare better-sqlite3 insert loop (baseline), (b) the
 * TraceWriter with its projections, (b') the same for a job whose settings carry the load job's
 * 1.6 MB script (a batch must not cost more for it); each as a ratio to (a). Then import: (d) a
 * bare loop that reads an exported file, parses each line and inserts it (the floor of any
 * import), and (e) importTraceFile, which also validates every line and projects the tree, as a
 * ratio to (d). The machine is shared and noisy, so (a), (b) and (b') run in turn `rounds` times,
 * each into a new database, and the best time of each counts. Export is bench/export.ts.
 * Run: node --import tsx bench/store.ts [events] [rounds]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase, type SqliteDatabase } from '../src-main/core/store/database'
import { exportJobJsonl } from '../src-main/core/store/export'
import { importTraceFile, readLinesSync } from '../src-main/core/store/import-job'
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
    ['message', { role: 'assistant', content: text, tool_calls: [{ id: `c${index}`, name: 'read_file', arguments: '{"path":"src/a.ts"}' }] }],
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
    push(agent, 'agent.start', { profile: 'general', model: 'scripted', label: `agent ${agent}`, task: text, tools: ['read_file'], max_steps: 1000, context_token_budget: null, total_token_budget: null })
  }
  for (let index = 0; events.length < count; index++) {
    const agent = index % agentsPerJob
    for (const [type, data] of round(agent, index)) if (events.length < count) push(agent, type, data)
  }
  return events
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
    const best = { bare: Infinity, writer: Infinity, scripted: Infinity }
    let commits = 0
    for (let round = 0; round < rounds; round++) {
      // (a) baseline: the same rows, prepared INSERT in one transaction, same schema and pragmas.
      const bare = newDatabase()
      new TraceWriter(bare).createJob(job)
      const insert = bare.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
      const baseline = time(() =>
        bare.transaction(() => {
          for (const event of events) insert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data))
        })(),
      )
      bare.close()
      best.bare = Math.min(best.bare, baseline.cpuMs)

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

    // A file to import: the writer's job, exported.
    const source = newDatabase()
    writeAll(source, job, events)
    const file = join(dir, 'trace.jsonl')
    const lines = await exportJobJsonl(source, jobId, file)
    source.close()

    // (d) the import floor: read the file line by line, parse, insert, one transaction.
    const floor = newDatabase()
    new TraceWriter(floor).createJob(job)
    const floorInsert = floor.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data, source_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    let header = true
    const bareImport = time(() =>
      floor.transaction(() =>
        readLinesSync(file, (line) => {
          if (header) return void (header = false)
          const event = JSON.parse(line) as NewTraceEvent & { seq: number }
          floorInsert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data), event.seq)
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
    console.log(`store bench: ${events.length} events, ${agentsPerJob} agents, best of ${rounds} rounds by CPU time, node ${process.version}`)
    console.log(`baseline (a): a bare better-sqlite3 insert loop of the same rows, 1 transaction; the writer made ${commits} commits`)
    record({ name: 'store.bare_insert', value: baseRate, unit: 'events/cpu-s', baseline: null })
    record({ name: 'store.writer', value: rate(events.length, best.writer), unit: 'events/cpu-s', baseline: baseRate, goal: { atLeast: 0.9 } })
    record({
      name: 'store.writer_with_script',
      value: rate(events.length, best.scripted),
      unit: 'events/cpu-s',
      baseline: baseRate,
      goal: { atLeast: 0.9 },
    })
    const importFloorRate = rate(lines - 1, bareImport.cpuMs)
    console.log('baseline (d): read the exported file, JSON.parse each line, insert it, 1 transaction')
    record({ name: 'store.import', value: rate(imported.value.events, imported.cpuMs), unit: 'events/cpu-s', baseline: importFloorRate })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
