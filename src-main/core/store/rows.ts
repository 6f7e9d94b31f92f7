import type { AgentStatus, JobStatus, TerminalReason, TraceEvent } from '../trace/events'
import { subagentApprovalsOf, type AgentNode, type AgentWait, type Job, type JobProgress, type JobSettings } from '../trace/model'
import type { SubagentApprovals } from '../trace/statuses'

export type { JobProgress }
import type { Usage } from '../trace/usage'

/** Rows as better-sqlite3 returns them, and their conversion to and from the typed model. */
export interface JobRow {
  id: string
  project: string
  task: string
  settings: string
  status: string
  created_at: string
  ended_at: string | null
  auto_approve: number
  subagent_approvals: string
  spawn_paused: number
  usage: string
  cost_usd: number | null
  imported: number
  /** Read only (jobReadColumns): the root agent's terminal reason. */
  end_reason?: string | null
}

export interface JobOwnerRow {
  owner_token: string | null
  owner_pid: number | null
  owner_host: string | null
  heartbeat_at: string | null
}

export interface AgentRow {
  id: string
  job_id: string
  parent_id: string | null
  depth: number
  label: string
  profile: string
  model: string | null
  task: string
  status: string
  terminal_reason: string | null
  current_tool: string | null
  steps: number
  max_steps: number | null
  total_token_budget: number | null
  usage: string
  cost_usd: number | null
  created_at: string
  started_at: string | null
  ended_at: string | null
  last_event_at: string
  background: number
  wait: string | null
}

export interface EventRow {
  seq: number
  job_id: string
  agent_id: string | null
  parent_id: string | null
  depth: number | null
  type: string
  ts: string
  data: string
}

export const jobFromRow = (row: JobRow): Job => ({
  id: row.id,
  project: row.project,
  task: row.task,
  settings: JSON.parse(row.settings) as JobSettings,
  status: row.status as JobStatus,
  created_at: row.created_at,
  ended_at: row.ended_at,
  auto_approve: row.auto_approve === 1,
  subagent_approvals: row.subagent_approvals as SubagentApprovals,
  spawn_paused: row.spawn_paused === 1,
  usage: JSON.parse(row.usage) as Usage,
  cost_usd: row.cost_usd,
  // Only imported jobs carry the flag, so a live job reads the same as it did before imports existed.
  ...(row.imported === 1 ? { imported: true } : {}),
  ...(row.end_reason ? { end_reason: row.end_reason as TerminalReason } : {}),
})

export const jobToRow = (job: Job): JobRow => ({
  id: job.id,
  project: job.project,
  task: job.task,
  settings: JSON.stringify(job.settings),
  status: job.status,
  created_at: job.created_at,
  ended_at: job.ended_at,
  auto_approve: job.auto_approve ? 1 : 0,
  subagent_approvals: subagentApprovalsOf(job),
  spawn_paused: job.spawn_paused ? 1 : 0,
  usage: JSON.stringify(job.usage),
  cost_usd: job.cost_usd,
  imported: job.imported ? 1 : 0,
})

/**
 * The part of a job its events change (trace/projection.ts reduceJob), with the id that names it.
 * Project, task, settings and created_at are written once, by createJob, and never read back to
 * project a batch: a scripted job's settings can hold megabytes of script.
 */
const jobProgressKeys = [
  'id',
  'status',
  'ended_at',
  'auto_approve',
  'subagent_approvals',
  'spawn_paused',
  'usage',
  'cost_usd',
] as const satisfies readonly (keyof JobProgress)[]
export type JobProgressRow = Pick<JobRow, (typeof jobProgressKeys)[number]>

export const jobProgressFromRow = (row: JobProgressRow): JobProgress => ({
  id: row.id,
  status: row.status as JobStatus,
  ended_at: row.ended_at,
  auto_approve: row.auto_approve === 1,
  subagent_approvals: row.subagent_approvals as SubagentApprovals,
  spawn_paused: row.spawn_paused === 1,
  usage: JSON.parse(row.usage) as Usage,
  cost_usd: row.cost_usd,
})

export const jobProgressToRow = (progress: JobProgress): JobProgressRow => ({
  id: progress.id,
  status: progress.status,
  ended_at: progress.ended_at,
  auto_approve: progress.auto_approve ? 1 : 0,
  subagent_approvals: subagentApprovalsOf(progress),
  spawn_paused: progress.spawn_paused ? 1 : 0,
  usage: JSON.stringify(progress.usage),
  cost_usd: progress.cost_usd,
})

export const agentFromRow = (row: AgentRow): AgentNode => ({
  id: row.id,
  job_id: row.job_id,
  parent_id: row.parent_id,
  depth: row.depth,
  label: row.label,
  profile: row.profile,
  model: row.model,
  task: row.task,
  status: row.status as AgentStatus,
  terminal_reason: row.terminal_reason as TerminalReason | null,
  current_tool: row.current_tool,
  steps: row.steps,
  max_steps: row.max_steps,
  total_token_budget: row.total_token_budget,
  usage: JSON.parse(row.usage) as Usage,
  cost_usd: row.cost_usd,
  created_at: row.created_at,
  started_at: row.started_at,
  ended_at: row.ended_at,
  last_event_at: row.last_event_at,
  // Only background children carry the flag, so every other node reads as it did before.
  ...(row.background === 1 ? { background: true } : {}),
  ...(row.wait ? { wait: JSON.parse(row.wait) as AgentWait } : {}),
})

export const agentToRow = (agent: AgentNode): AgentRow => ({
  ...agent,
  usage: JSON.stringify(agent.usage),
  background: agent.background ? 1 : 0,
  wait: agent.wait ? JSON.stringify(agent.wait) : null,
})

/** A stored event: its data was checked when it was recorded (typed) or imported (parsed), so it is trusted here. */
export const eventFromRow = (row: EventRow): TraceEvent =>
  ({
    type: row.type,
    seq: row.seq,
    ts: row.ts,
    job_id: row.job_id,
    agent_id: row.agent_id,
    parent_id: row.parent_id,
    depth: row.depth,
    data: JSON.parse(row.data) as unknown,
  }) as TraceEvent

/** Column lists kept next to the row types so every SELECT returns exactly a row. */
export const jobColumns =
  'id, project, task, settings, status, created_at, ended_at, auto_approve, subagent_approvals, spawn_paused, usage, cost_usd, imported'
/**
 * jobColumns and how the job's root ended, read from the root's row: the reason that names a
 * killed job, in databases written before `job.end` carried it as well.
 */
export const jobReadColumns =
  `${jobColumns}, (SELECT terminal_reason FROM agents WHERE agents.job_id = jobs.id AND agents.parent_id IS NULL ` +
  'ORDER BY created_seq LIMIT 1) AS end_reason'
/** The columns of JobProgressRow, id first. */
export const jobProgressColumns = jobProgressKeys.join(', ')
/** Who runs a job (store/owner.ts); kept apart from jobColumns: not part of the job, never exported. */
export const jobOwnerColumns = 'owner_token, owner_pid, owner_host, heartbeat_at'
export const agentColumns =
  'id, job_id, parent_id, depth, label, profile, model, task, status, terminal_reason, current_tool, steps, ' +
  'max_steps, total_token_budget, usage, cost_usd, created_at, started_at, ended_at, last_event_at, background, wait'
export const eventColumns = 'seq, job_id, agent_id, parent_id, depth, type, ts, data'
