import type { Profile } from '../job/profiles'
import type { McpServerSpec } from '../job/mcp-config'
import type { Redactor } from '../secrets/redact'
import { isFinishedStatus, type TraceEvent } from '../trace/events'
import { subagentApprovalsOf, type AgentNode, type Job } from '../trace/model'
import type { AgentInit } from '../protocol/messages'
import type { JobSettings } from '../trace/model'
import { newAgentRuntime, newJobRuntime, type AgentRuntime, type JobContext, type JobRuntime, type TraceSink } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/**
 * What continuing an agent from its history needs of the supervisor, for a follow-up or a crash
 * restart (follow-ups.ts) and for a resumed job (resume-job.ts): the trace to read and write, its
 * jobs and agents, a job's context, and how an agent's new process is started.
 */
export interface Continuation {
  trace: TraceEmitter
  sink: TraceSink
  /** Without it no agent can be continued: nothing to rebuild its history from. */
  source: ResumeSource | undefined
  jobs: Map<string, JobRuntime>
  agents: Map<string, AgentRuntime>
  jobContext(project: string, settings: JobSettings): JobContext
  env: NodeJS.ProcessEnv
  /** Starts the agent's new process with its history (no second agent.start). */
  launch(agent: AgentRuntime, firstMessage: string, resume: AgentInit['resume']): void
}

/** What the supervisor reads back from the trace to continue an agent that ended. */
export interface ResumeSource {
  /** A stored job and its agents, parents before children; undefined when there is no such job. */
  storedJob(jobId: string): { job: Job; agents: AgentNode[] } | undefined
  /** Every event of one agent, in seq order, everything appended so far included. */
  agentEvents(agentId: string): TraceEvent[]
}

/**
 * An ended job as the supervisor would hold it had it run in this process: its settings, and its
 * agents with what they spent (the job's budgets go on counting from there) and their place in
 * the tree, every one ended. A follow-up then resumes one of them. Agents whose profile the
 * project no longer has keep their recorded name and the root's profile's limits.
 */
export function rehydrateJob(
  stored: { job: Job; agents: AgentNode[] },
  fields: { context: JobContext; redactor: Redactor; profiles: Record<string, Profile>; mcpServers?: Record<string, McpServerSpec> },
): JobRuntime {
  const { job: row, agents } = stored
  const job = newJobRuntime({
    id: row.id,
    project: row.project,
    settings: row.settings,
    context: fields.context,
    profiles: fields.profiles,
    subagentApprovals: subagentApprovalsOf(row),
    paused: row.spawn_paused,
    redactor: fields.redactor,
  })
  if (fields.mcpServers) job.mcpServers = fields.mcpServers
  job.active = false
  job.ended = true
  const fallback = fields.profiles[row.settings.profile] ?? Object.values(fields.profiles)[0]
  if (!fallback) throw new Error('no profiles to run the job with')
  const byId = new Map<string, AgentRuntime>()
  for (const node of agents) {
    const parent = node.parent_id === null ? null : (byId.get(node.parent_id) ?? null)
    if (node.parent_id !== null && !parent) continue
    const profile = fields.profiles[node.profile] ?? { ...fallback, name: node.profile }
    const agent = newAgentRuntime({
      id: node.id,
      job,
      parent,
      profile,
      label: node.label,
      task: node.task,
      request: null,
      callId: null,
      status: isFinishedStatus(node.status) ? node.status : 'cancelled',
      now: Date.now(),
    })
    agent.ended = true
    agent.usage = node.usage
    agent.costUsd = node.cost_usd
    agent.steps = node.steps
    agent.model = node.model
    // A branch budget goes on holding the branch, as the job's caps do (its settings).
    agent.branchBudget = node.branch_budget ?? null
    job.agents.set(agent.id, agent)
    byId.set(agent.id, agent)
    parent?.children.push(agent)
    if (!parent) job.root = agent
  }
  job.rootReason = agents.find((node) => node.parent_id === null)?.terminal_reason ?? null
  return job
}
