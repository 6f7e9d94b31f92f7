import { isFinishedStatus } from '../trace/events'
import type { SqliteDatabase } from './database'
import { getAgents, getJobUsage, listJobs } from './queries'
import type { TraceWriter } from './trace-writer'

/**
 * At start-up, before any job runs: jobs a previous run left `running` end in the trace, so the
 * tree, the job list and an export all agree. Each unfinished agent gets an `agent.end`
 * (held or queued: `cancelled`; otherwise `failed` with terminal reason `crashed`), then the job
 * a `job.end` with status `interrupted` and the usage its agents had reached. Returns the job ids.
 */
export function endInterruptedJobs(db: SqliteDatabase, writer: TraceWriter, now: () => Date = () => new Date()): string[] {
  const leftovers = listJobs(db).filter((job) => job.status === 'running' && !job.imported)
  for (const job of leftovers) {
    const ts = now().toISOString()
    for (const agent of getAgents(db, job.id)) {
      if (isFinishedStatus(agent.status)) continue
      const neverRan = agent.status === 'held' || agent.status === 'queued'
      writer.append({
        type: 'agent.end',
        ts,
        job_id: job.id,
        agent_id: agent.id,
        parent_id: agent.parent_id,
        depth: agent.depth,
        data: {
          status: neverRan ? 'cancelled' : 'failed',
          terminal_reason: neverRan ? 'cancelled' : 'crashed',
          result: null,
          summary: 'Arbor stopped while this agent was running; the job was interrupted.',
          usage: agent.usage,
          cost_usd: agent.cost_usd,
          steps: agent.steps,
          tool_usage: {},
          duration_ms: agent.started_at ? Date.parse(ts) - Date.parse(agent.started_at) : 0,
        },
      })
    }
    writer.flush()
    const { usage, cost_usd } = getJobUsage(db, job.id)
    writer.append({ type: 'job.end', ts, job_id: job.id, agent_id: null, parent_id: null, depth: null, data: { status: 'interrupted', usage, cost_usd } })
  }
  writer.flush()
  return leftovers.map((job) => job.id)
}
