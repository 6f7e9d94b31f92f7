import type { Statement } from 'better-sqlite3'
import type { NewTraceEvent } from '../trace/events'
import type { SqliteDatabase } from './database'
import { InvalidEventError, UnknownJobError } from './errors'
import { checkEvent, type CheckedEvent } from './event-check'

/**
 * What `append` checks before an event is queued, so a bad event fails at its caller: the
 * envelope (event-check.ts), a job the store knows, and agent ids that belong to that job (an
 * agent id of another job would overwrite that job's node). Known jobs and agents are kept, so
 * each costs one read. Shared by the writer on this thread and the one that commits on its own.
 */
export class AppendGate {
  private readonly knownJobs = new Set<string>()
  /** Agent id → its job, for every agent id seen: agent ids are unique across jobs. */
  private readonly agentJobs = new Map<string, string>()
  private readonly selectJobId: Statement<[string], { id: string }>
  private readonly selectAgentJob: Statement<[string], { job_id: string }>

  constructor(db: SqliteDatabase) {
    this.selectJobId = db.prepare('SELECT id FROM jobs WHERE id = ?')
    this.selectAgentJob = db.prepare('SELECT job_id FROM agents WHERE id = ?')
  }

  /** The event as it will be stored, or an InvalidEventError / UnknownJobError. */
  check(event: NewTraceEvent): CheckedEvent {
    const checked = checkEvent(event)
    const { job_id, agent_id, data } = checked.event
    this.assertKnownJob(job_id)
    if (agent_id !== null) this.claimAgent(agent_id, job_id)
    if (typeof data.child_agent_id === 'string') this.claimAgent(data.child_agent_id, job_id)
    return checked
  }

  jobExists(jobId: string): boolean {
    return this.knownJobs.has(jobId) || this.selectJobId.get(jobId) !== undefined
  }

  /** A job just created: its events may be appended. */
  addJob(jobId: string): void {
    this.knownJobs.add(jobId)
  }

  private assertKnownJob(jobId: string): void {
    if (this.knownJobs.has(jobId)) return
    if (!this.selectJobId.get(jobId)) throw new UnknownJobError(jobId)
    this.knownJobs.add(jobId)
  }

  private claimAgent(agentId: string, jobId: string): void {
    let owner = this.agentJobs.get(agentId)
    if (owner === undefined) {
      owner = this.selectAgentJob.get(agentId)?.job_id ?? jobId
      this.agentJobs.set(agentId, owner)
    }
    if (owner !== jobId) throw new InvalidEventError(`agent ${agentId} belongs to job ${owner}, not ${jobId}`)
  }
}
