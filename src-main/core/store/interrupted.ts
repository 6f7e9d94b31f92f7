import { isFinishedStatus } from '../trace/events'
import type { SqliteDatabase } from './database'
import { jobOwnersFor } from './job-owners'
import { newOwnerIdentity, ownerVerdict, type LivenessCheck } from './owner'
import { getAgents, getJobUsage } from './queries'
import type { TraceLog } from './trace-writer'

export interface EndInterruptedOptions extends Pick<LivenessCheck, 'staleAfterMs' | 'heartbeatCounts' | 'pidAlive'> {
  now?: () => Date
}

/**
 * Ends, in the trace, every running job whose owner process is gone (store/owner.ts decides), so
 * the tree, the job list and an export all agree; a job another live process runs is left
 * alone. Run when a process opens the database, and by the heartbeat for owners that exit later.
 * The job is first taken over (of two processes sweeping at once, one wins), then each unfinished
 * agent gets an `agent.end` (held or queued: `cancelled`; otherwise `failed` with terminal reason
 * `crashed`; each marked `interrupted: true` with the status it had, so a resume knows which
 * agents go on), then the job a `job.end` with status `interrupted` and the usage its agents had
 * reached, all in one batch. Returns the ids of the jobs it ended.
 */
export function endInterruptedJobs(db: SqliteDatabase, writer: TraceLog, options: EndInterruptedOptions = {}): string[] {
  const now = options.now ?? (() => new Date())
  const owners = jobOwnersFor(db)
  // A writer without an owner (tests, tools) still takes a job over under some token.
  const self = writer.owner ?? newOwnerIdentity()
  const ended: string[] = []
  for (const candidate of owners.running()) {
    const at = now()
    if (ownerVerdict(candidate, { ...options, self, now: at }).live) continue
    if (!owners.takeOver(candidate.job_id, candidate, self, at)) continue
    endJob(db, writer, candidate.job_id, at.toISOString())
    ended.push(candidate.job_id)
  }
  return ended
}

/** One batch, so the agents' ends and the job's end are stored together. */
function endJob(db: SqliteDatabase, writer: TraceLog, jobId: string, ts: string): void {
  // An agent's end repeats the usage it had reached, so the job's total is known before.
  const { usage, cost_usd } = getJobUsage(db, jobId)
  // Deepest first, as a clean end goes: a child ends before its parent.
  const unfinished = getAgents(db, jobId).filter((agent) => !isFinishedStatus(agent.status))
  for (const agent of unfinished.sort((a, b) => b.depth - a.depth)) {
    const neverRan = agent.status === 'held' || agent.status === 'queued'
    writer.append({
      type: 'agent.end',
      ts,
      job_id: jobId,
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
        // What `resumeJob` reads to know which agents go on, and how (supervisor/resume-job.ts).
        interrupted: true,
        interrupted_status: agent.status,
      },
    })
  }
  writer.append({
    type: 'job.end',
    ts,
    job_id: jobId,
    agent_id: null,
    parent_id: null,
    depth: null,
    data: { status: 'interrupted', usage, cost_usd },
  })
  writer.flush()
}
