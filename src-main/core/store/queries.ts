import type { Statement } from 'better-sqlite3'
import { answerText } from '../trace/answer'
import type { TraceEvent } from '../trace/events'
import type { AgentNode, Job } from '../trace/model'
import { addCost, addUsage, emptyUsage, type Usage } from '../trace/usage'
import type { SqliteDatabase } from './database'
import {
  agentColumns,
  agentFromRow,
  eventColumns,
  eventFromRow,
  jobFromRow,
  jobReadColumns,
  type AgentRow,
  type EventRow,
  type JobRow,
} from './rows'

export const defaultEventLimit = 1000

/**
 * Read side of the store: rows turned into typed objects, JSON parsed. Statements are
 * prepared once. Reads see every committed batch (never a half-written one).
 */
export class TraceQueries {
  private readonly allJobs: Statement<[], JobRow>
  private readonly projectJobs: Statement<[string], JobRow>
  private readonly oneJob: Statement<[string], JobRow>
  private readonly jobAgents: Statement<[string], AgentRow>
  private readonly oneAgent: Statement<[string], AgentRow>
  private readonly agentEvents: Statement<[string, number, number], EventRow>
  private readonly jobEvents: Statement<[string, number, number], EventRow>
  private readonly jobEventsButMessages: Statement<[string, number, number], EventRow>
  private readonly jobLastSeq: Statement<[string], { seq: number | null }>
  private readonly rootLast: Statement<[string], { type: string; data: string }>
  private readonly rootEnd: Statement<[string], { type: string; data: string }>

  constructor(db: SqliteDatabase) {
    const newestFirst = 'ORDER BY created_at DESC, rowid DESC'
    this.allJobs = db.prepare(`SELECT ${jobReadColumns} FROM jobs ${newestFirst}`)
    this.projectJobs = db.prepare(`SELECT ${jobReadColumns} FROM jobs WHERE project = ? ${newestFirst}`)
    this.oneJob = db.prepare(`SELECT ${jobReadColumns} FROM jobs WHERE id = ?`)
    this.jobAgents = db.prepare(`SELECT ${agentColumns} FROM agents WHERE job_id = ? ORDER BY created_seq, rowid`)
    this.oneAgent = db.prepare(`SELECT ${agentColumns} FROM agents WHERE id = ?`)
    this.agentEvents = db.prepare(`SELECT ${eventColumns} FROM events WHERE agent_id = ? AND seq > ? ORDER BY seq LIMIT ?`)
    this.jobEvents = db.prepare(`SELECT ${eventColumns} FROM events WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?`)
    this.jobEventsButMessages = db.prepare(
      `SELECT ${eventColumns} FROM events WHERE job_id = ? AND seq > ? AND type <> 'message' ORDER BY seq LIMIT ?`,
    )
    this.jobLastSeq = db.prepare('SELECT max(seq) AS seq FROM events WHERE job_id = ?')
    // The root's agent.end is its last event: the end of its run in events_by_agent, one step.
    const root = 'SELECT id FROM agents WHERE job_id = ? AND parent_id IS NULL ORDER BY created_seq LIMIT 1'
    this.rootLast = db.prepare(`SELECT type, data FROM events WHERE agent_id = (${root}) ORDER BY seq DESC LIMIT 1`)
    this.rootEnd = db.prepare(`SELECT type, data FROM events WHERE agent_id = (${root}) AND type = 'agent.end' ORDER BY seq DESC LIMIT 1`)
  }

  /** Jobs, newest first; only one project's when `project` is given. */
  listJobs(project?: string): Job[] {
    const rows = project === undefined ? this.allJobs.all() : this.projectJobs.all(project)
    return rows.map(jobFromRow)
  }

  getJob(id: string): Job | undefined {
    const row = this.oneJob.get(id)
    return row ? jobFromRow(row) : undefined
  }

  /** The job's delegation tree as a flat list, in the order agents appeared in the trace. */
  getAgents(jobId: string): AgentNode[] {
    return this.jobAgents.all(jobId).map(agentFromRow)
  }

  getAgent(id: string): AgentNode | undefined {
    const row = this.oneAgent.get(id)
    return row ? agentFromRow(row) : undefined
  }

  /** One agent's events with seq > afterSeq, oldest first; page with the last seq seen. */
  getEvents(agentId: string, afterSeq = 0, limit = defaultEventLimit): TraceEvent[] {
    return this.agentEvents.all(agentId, afterSeq, limit).map(eventFromRow)
  }

  /** Every event of a job with seq > afterSeq (job-level events included), oldest first. */
  getJobEvents(jobId: string, afterSeq = 0, limit = defaultEventLimit): TraceEvent[] {
    return this.jobEvents.all(jobId, afterSeq, limit).map(eventFromRow)
  }

  /**
   * A job's events with seq > afterSeq but its `message` events (the conversation's bodies, most
   * of a trace's bytes), oldest first: what the timeline and the tree projection read.
   */
  getJobEventsButMessages(jobId: string, afterSeq = 0, limit = defaultEventLimit): TraceEvent[] {
    return this.jobEventsButMessages.all(jobId, afterSeq, limit).map(eventFromRow)
  }

  /** The highest seq stored for a job (0 when none): the watermark of a tree snapshot. */
  lastSeq(jobId: string): number {
    return this.jobLastSeq.get(jobId)?.seq ?? 0
  }

  /**
   * What the job's root agent answered (its agent.end `result`) as text: a string as it is, a
   * structured result as indented JSON; null while the root runs or when it ended without one.
   */
  rootAnswer(jobId: string): string | null {
    const last = this.rootLast.get(jobId)
    // An event after the end (a trace written by another tool) costs a scan of the root's events.
    const row = last?.type === 'agent.end' ? last : last ? this.rootEnd.get(jobId) : undefined
    if (!row) return null
    return answerText((JSON.parse(row.data) as { result?: unknown }).result)
  }

  /** Usage and cost summed over a job's agents: the live total while the job runs. */
  getJobUsage(jobId: string): { usage: Usage; cost_usd: number | null } {
    let usage = emptyUsage()
    let cost: number | null = null
    for (const agent of this.getAgents(jobId)) {
      usage = addUsage(usage, agent.usage)
      cost = addCost(cost, agent.cost_usd)
    }
    return { usage, cost_usd: cost }
  }
}

const cache = new WeakMap<SqliteDatabase, TraceQueries>()

/** The queries of one connection, prepared on first use and reused. */
export function queriesFor(db: SqliteDatabase): TraceQueries {
  let queries = cache.get(db)
  if (!queries) {
    queries = new TraceQueries(db)
    cache.set(db, queries)
  }
  return queries
}

export const listJobs = (db: SqliteDatabase, project?: string): Job[] => queriesFor(db).listJobs(project)
export const getJob = (db: SqliteDatabase, id: string): Job | undefined => queriesFor(db).getJob(id)
export const getAgents = (db: SqliteDatabase, jobId: string): AgentNode[] => queriesFor(db).getAgents(jobId)
export const getAgent = (db: SqliteDatabase, id: string): AgentNode | undefined => queriesFor(db).getAgent(id)
export const getEvents = (db: SqliteDatabase, agentId: string, afterSeq?: number, limit?: number): TraceEvent[] =>
  queriesFor(db).getEvents(agentId, afterSeq, limit)
export const getJobEvents = (db: SqliteDatabase, jobId: string, afterSeq?: number, limit?: number): TraceEvent[] =>
  queriesFor(db).getJobEvents(jobId, afterSeq, limit)
export const getJobEventsButMessages = (db: SqliteDatabase, jobId: string, afterSeq?: number, limit?: number): TraceEvent[] =>
  queriesFor(db).getJobEventsButMessages(jobId, afterSeq, limit)
export const lastSeq = (db: SqliteDatabase, jobId: string): number => queriesFor(db).lastSeq(jobId)
export const rootAnswer = (db: SqliteDatabase, jobId: string): string | null => queriesFor(db).rootAnswer(jobId)
/**
 * The provider and models of the newest job the user ran here with a real model (not an imported
 * one, not the scripted demo), or null: what a new project's first job form starts on.
 */
export function lastUsedModel(
  db: SqliteDatabase,
): { provider: string; base_url: string | null; model: string | null; light_model: string | null } | null {
  const row = db
    .prepare<[], { provider: string; base_url: string | null; model: string | null; light_model: string | null }>(
      `SELECT json_extract(settings, '$.provider') AS provider, json_extract(settings, '$.base_url') AS base_url,
              json_extract(settings, '$.model') AS model,
              json_extract(settings, '$.light_model') AS light_model
       FROM jobs WHERE imported = 0 AND json_extract(settings, '$.provider') <> 'scripted'
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    )
    .get()
  return row ?? null
}

export const getJobUsage = (db: SqliteDatabase, jobId: string): { usage: Usage; cost_usd: number | null } =>
  queriesFor(db).getJobUsage(jobId)
