import type { Statement } from 'better-sqlite3'
import type { TraceEvent } from '../trace/events'
import type { AgentNode } from '../trace/model'
import { agentProgressKeys, changesJob, createsAgent, jobBudgetsSetBy, reduceAgents, reduceJob, updateAgent } from '../trace/projection'
import type { SqliteDatabase } from './database'
import {
  agentColumns,
  agentFromRow,
  agentToRow,
  jobProgressColumns,
  jobProgressFromRow,
  jobProgressToRow,
  type AgentRow,
  type JobProgress,
  type JobProgressRow,
} from './rows'

// An agent's job never changes (the writer refuses an agent id of another job): leaving job_id
// out of the update spares a foreign-key check and an agents_by_job index update per row.
const agentNames = agentColumns.split(', ') as (keyof AgentRow)[]
const mutableAgentColumns = agentNames.filter((column) => column !== 'id' && column !== 'job_id')
const mutableJobColumns = jobProgressColumns.split(', ').filter((column) => column !== 'id')
/** Committed agents kept between batches; past this many the cache starts over (10,000-agent trees fit). */
const maxCachedAgents = 20_000

/**
 * Applies the pure reducers of trace/projection.ts to the agents and jobs tables, one batch at
 * a time, inside the writer's transaction. Rows a batch touches are read once and kept here,
 * so many events for one agent cost one read; each changed row is written once, at the end of
 * the batch: whole if an event that creates agents touched it, else only its progress columns.
 * The batch works on its own copy of each agent it touches and folds the events into it in
 * place (trace/projection.ts updateAgent), so an event costs no new node; the result is
 * what reduceAgents gives event by event. Of a job only its progress (rows.ts JobProgress) is
 * read and written: the columns its events change. `committed()` keeps the batch's agents as
 * they now are in the table, so the next batch reads them from memory, not from SQLite (as new
 * copies: a committed node is never changed); `reset()` forgets the batch (after commit or
 * rollback). That cache holds because an agent's row is written only by the writer of its
 * job's events: one writer per job, the job's owner (store/owner.ts).
 */
export class BatchProjector {
  /** The batch's working copies (undefined: no such agent yet); never the committed nodes themselves. */
  private readonly agents = new Map<string, AgentNode | undefined>()
  /** Agents as the last commits left them, by id. */
  private readonly committedAgents = new Map<string, AgentNode>()
  /** Changed agents, in the order they were first changed, with the seq of that event. */
  private readonly changedAgents = new Map<string, number>()
  /** Changed agents whose whole row is written: an event that creates agents touched them (it may add the row). */
  private readonly reshapedAgents = new Set<string>()
  private readonly jobs = new Map<string, JobProgress | undefined>()
  private readonly changedJobs = new Set<string>()
  private readonly selectAgent: Statement<[string], AgentRow>
  /** Bound by position: binding 21 named parameters from an object cost more than the upsert itself. */
  private readonly upsertAgent: Statement<unknown[]>
  /** An agent only updateAgent changed: its 8 progress columns of 21, at half the upsert's CPU. */
  private readonly updateAgentProgress: Statement<unknown[]>
  private readonly selectJob: Statement<[string], JobProgressRow>
  private readonly updateJob: Statement<[JobProgressRow]>
  /** One cap of a job's settings (written once by createJob otherwise): a `set_budget` or a follow-up raised it. */
  private readonly setJobSetting: Statement<[string, string, string]>

  constructor(db: SqliteDatabase) {
    this.selectAgent = db.prepare(`SELECT ${agentColumns} FROM agents WHERE id = ?`)
    this.upsertAgent = db.prepare(
      `INSERT INTO agents (${agentColumns}, created_seq) VALUES (${agentNames.map(() => '?').join(', ')}, ?)
       ON CONFLICT (id) DO UPDATE SET ${mutableAgentColumns.map((name) => `${name} = excluded.${name}`).join(', ')}`,
    )
    this.updateAgentProgress = db.prepare(`UPDATE agents SET ${agentProgressKeys.map((name) => `${name} = ?`).join(', ')} WHERE id = ?`)
    this.selectJob = db.prepare(`SELECT ${jobProgressColumns} FROM jobs WHERE id = ?`)
    this.updateJob = db.prepare(`UPDATE jobs SET ${mutableJobColumns.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`)
    this.setJobSetting = db.prepare('UPDATE jobs SET settings = json_set(settings, ?, json(?)) WHERE id = ?')
  }

  apply(event: TraceEvent): void {
    if (!createsAgent(event)) {
      const node = event.agent_id ? this.getAgent(event.agent_id) : undefined
      if (node) {
        updateAgent(node, event)
        if (!this.changedAgents.has(node.id)) this.changedAgents.set(node.id, event.seq)
      }
    } else {
      for (const node of reduceAgents(event, this.getAgent)) {
        this.agents.set(node.id, node)
        this.reshapedAgents.add(node.id)
        if (!this.changedAgents.has(node.id)) this.changedAgents.set(node.id, event.seq)
      }
    }
    if (!changesJob(event)) return
    for (const [key, value] of Object.entries(jobBudgetsSetBy(event) ?? {})) {
      this.setJobSetting.run(`$.${key}`, JSON.stringify(value), event.job_id)
    }
    const job = this.getJob(event.job_id)
    if (!job) return
    const next = reduceJob(job, event)
    if (next === job) return
    this.jobs.set(job.id, next)
    this.changedJobs.add(job.id)
  }

  /** Writes every changed row; call inside the transaction, after the last `apply`. */
  write(): void {
    for (const [id, firstSeq] of this.changedAgents) {
      const node = this.agents.get(id)
      if (!node) continue
      const row = agentToRow(node)
      if (this.reshapedAgents.has(id)) this.upsertAgent.run(...agentNames.map((name) => row[name]), firstSeq)
      else this.updateAgentProgress.run(...agentProgressKeys.map((name) => row[name]), id)
    }
    for (const id of this.changedJobs) {
      const job = this.jobs.get(id)
      if (job) this.updateJob.run(jobProgressToRow(job))
    }
  }

  /** The batch was committed: its agents are now what the table holds. Call before `reset()`. */
  committed(): void {
    if (this.committedAgents.size + this.changedAgents.size > maxCachedAgents) this.committedAgents.clear()
    for (const id of this.changedAgents.keys()) {
      const node = this.agents.get(id)
      if (node) this.committedAgents.set(id, node)
    }
  }

  reset(): void {
    this.agents.clear()
    this.changedAgents.clear()
    this.reshapedAgents.clear()
    this.jobs.clear()
    this.changedJobs.clear()
  }

  /** The batch's working copy of an agent: committed nodes are copied, so a rollback leaves them as they were. */
  private readonly getAgent = (id: string): AgentNode | undefined => {
    if (this.agents.has(id)) return this.agents.get(id)
    const committed = this.committedAgents.get(id)
    let node: AgentNode | undefined
    if (committed) node = { ...committed }
    else {
      const row = this.selectAgent.get(id)
      node = row ? agentFromRow(row) : undefined
    }
    this.agents.set(id, node)
    return node
  }

  private getJob(id: string): JobProgress | undefined {
    if (this.jobs.has(id)) return this.jobs.get(id)
    const row = this.selectJob.get(id)
    const job = row ? jobProgressFromRow(row) : undefined
    this.jobs.set(id, job)
    return job
  }
}
