/**
 * The store benches' workload (bench/store.ts, bench/store-variants.ts): one job of 40 agents
 * whose events mix model calls, tool calls and messages as a real job's do, the bare insert loop
 * that is their floor, and the CPU-time clock they are measured with.
 */
import { performance } from 'node:perf_hooks'
import type { SqliteDatabase } from '../src-main/core/store/database'
import type { NewTraceEvent } from '../src-main/core/trace/events'
import { defaultSettings, type Job } from '../src-main/core/trace/model'
import { emptyUsage } from '../src-main/core/trace/usage'

export const agentsPerJob = 40
export const jobId = 'job_bench'
const text = 'The module exports a TraceWriter that batches events into one transaction per flush. '.repeat(4)

export const job: Job = {
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
export function makeEvents(count: number): NewTraceEvent[] {
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
export function bareInsert(db: SqliteDatabase, events: NewTraceEvent[], batch: number): void {
  const insert = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const commit = db.transaction((from: number, to: number) => {
    for (let index = from; index < to; index++) {
      const event = events[index]!
      insert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data))
    }
  })
  for (let from = 0; from < events.length; from += batch) commit(from, Math.min(events.length, from + batch))
}

/**
 * Wall time and this process's CPU time (user + system) of `run`. The figures use CPU time: on
 * a shared machine wall time mostly measures the other processes; everything timed here is
 * synchronous work in this process (SQLite included), so CPU time is what it costs.
 */
export function time<T>(run: () => T): { ms: number; cpuMs: number; value: T } {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const value = run()
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value }
}
