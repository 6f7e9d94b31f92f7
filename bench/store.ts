/**
 * Store benchmark: events/second of (a) a bare better-sqlite3 insert loop (baseline), (b) the
 * TraceWriter with its projections, (b') the same for a job whose settings carry the load job's
 * 1.6 MB script (a batch must not cost more for it), (c) JSONL export; each as a ratio to (a). Then import:
 * (d) a bare loop that reads the exported file, parses each line and inserts it (the floor of any
 * import), and (e) importTraceFile, which also validates every line and projects the tree, as a
 * ratio to (d).
 * Run: node --import tsx bench/store.ts [events]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase, type SqliteDatabase } from '../src-main/core/store/database'
import { exportJobJsonl } from '../src-main/core/store/export'
import { importTraceFile, readLinesSync } from '../src-main/core/store/import-job'
import { TraceWriter } from '../src-main/core/store/trace-writer'
import { defaultLoadShape, loadJobSettings } from '../src-main/core/testing/load-job'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import type { Job } from '../src-main/core/trace/model'
import { emptyUsage } from '../src-main/core/trace/usage'

const eventCount = Number(process.argv[2] ?? 100_000)
const agentsPerJob = 40
const jobId = 'job_bench'
const text = 'The module exports a TraceWriter that batches events into one transaction per flush. '.repeat(4)

const job: Job = {
  id: jobId,
  project: '/projects/bench',
  task: 'benchmark',
  settings: {
    provider: 'scripted',
    model: 'scripted',
    light_model: null,
    profile: 'general',
    max_depth: 2,
    max_concurrent_children: 8,
    job_token_budget: null,
    job_cost_budget: null,
  },
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
function writeAll(db: SqliteDatabase, target: Job, events: NewTraceEvent[]): { ms: number; commits: number } {
  const writer = new TraceWriter(db)
  writer.createJob(target)
  let commits = 0
  writer.onCommit(() => commits++)
  const written = time(() => {
    for (const event of events) writer.append(event)
    writer.flush()
  })
  writer.close()
  return { ms: written.ms, commits }
}

function time<T>(run: () => T): { ms: number; value: T } {
  const started = performance.now()
  const value = run()
  return { ms: performance.now() - started, value }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'))
  try {
    const events = makeEvents(eventCount)

    // (a) baseline: the same rows, prepared INSERT in one transaction, same schema and pragmas.
    const bare = openDatabase(join(dir, 'bare.db'))
    new TraceWriter(bare).createJob(job)
    const insert = bare.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
    const baseline = time(() =>
      bare.transaction(() => {
        for (const event of events) insert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data))
      })(),
    )
    bare.close()

    // (b) the writer; (b') the writer for a job with the load job's script in its settings.
    const db = openDatabase(join(dir, 'writer.db'))
    const written = writeAll(db, job, events)
    const scripted = openDatabase(join(dir, 'scripted.db'))
    const scriptedSettings = loadJobSettings(defaultLoadShape)
    const scriptedWritten = writeAll(scripted, { ...job, settings: scriptedSettings }, events)
    scripted.close()

    // (c) export the writer's job to a JSONL file.
    const file = join(dir, 'trace.jsonl')
    const started = performance.now()
    const lines = await exportJobJsonl(db, jobId, file)
    const exportMs = performance.now() - started
    db.close()

    // (d) the import floor: read the file line by line, parse, insert, one transaction.
    const floor = openDatabase(join(dir, 'floor.db'))
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
    const target = openDatabase(join(dir, 'import.db'))
    const imported = time(() => importTraceFile(target, file))
    target.close()

    const rate = (count: number, ms: number) => (count / ms) * 1000
    const baseRate = rate(events.length, baseline.ms)
    const rows: [string, number, number][] = [
      ['(a) bare insert loop, 1 transaction', events.length, baseline.ms],
      [`(b) TraceWriter + projections, ${written.commits} commits`, events.length, written.ms],
      [`(b') (b), ${(JSON.stringify(scriptedSettings).length / 1e6).toFixed(1)} MB script in settings`, events.length, scriptedWritten.ms],
      [`(c) export JSONL (${(statSync(file).size / 1e6).toFixed(1)} MB)`, lines, exportMs],
    ]
    console.log(`store bench: ${events.length} events, ${agentsPerJob} agents, node ${process.version}`)
    const report = (name: string, count: number, ms: number, baseline: number, label: string) => {
      const perSecond = rate(count, ms)
      console.log(
        `${name.padEnd(44)} ${Math.round(perSecond).toLocaleString('en-US').padStart(11)} /s  ` +
          `${ms.toFixed(0).padStart(6)} ms  ratio to ${label} ${(perSecond / baseline).toFixed(2)}`,
      )
    }
    for (const [name, count, ms] of rows) report(name, count, ms, baseRate, '(a)')
    const importFloorRate = rate(lines - 1, bareImport.ms)
    report('(d) bare read + parse + insert of the file', lines - 1, bareImport.ms, importFloorRate, '(d)')
    report('(e) importTraceFile (checked, projected)', imported.value.events, imported.ms, importFloorRate, '(d)')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
