import type { AgentStatus, JobStatus, TerminalReason } from './events'
import type { SubagentApprovals, WaitReason } from './statuses'
import type { Usage } from './usage'

/**
 * Settings a job is started with; stored as JSON on the job and in its header line. A type, not
 * an interface, so it fits the loose `settings` schema of event-data.ts.
 */
export type JobSettings = {
  /** `openai_compatible` talks Chat Completions to `base_url` (Ollama, LM Studio, vLLM, …). */
  provider: 'scripted' | 'openai' | 'anthropic' | 'openai_compatible'
  model: string
  light_model: string | null
  /** An OpenAI- or Anthropic-compatible server; null: the provider's default or its *_BASE_URL variable. */
  base_url?: string | null
  profile: string
  max_depth: number
  max_concurrent_children: number
  job_token_budget: number | null
  job_cost_budget: number | null
  /** Wall-clock limit per agent; past it the agent ends with terminal reason `timeout`. None by default. */
  agent_timeout_ms?: number | null
  /** Subagents' wall-clock limit, as jobs before agent_timeout_ms recorded it. */
  subagent_timeout_ms?: number | null
  /** The scripted provider's plan, keyed by agent label (`root` for the root agent). */
  script?: ScriptPlan
  /** No API key is sent: the job's base URL is a server that needs none. */
  no_key?: boolean
  /** Commands may reach the network (the sandbox shares the host's network). Off by default. */
  allow_network?: boolean
  /** Commands run without the OS sandbox. Off by default; asked for again on every job. */
  no_sandbox?: boolean
  /** At most this many spawns per parent turn (one model reply); 0 turns the guard off. */
  max_spawns_per_turn?: number
  /** Restarts of an agent whose process crashed (absent: `defaultRestartCrashed`; 0: never). */
  restart_crashed?: number
  /** At most this many spawns per minute in the whole job; 0 turns the guard off. */
  max_spawns_per_minute?: number
  /** Subagents the whole job may spawn, the root not counted (absent: `defaultMaxAgents`; 0: no cap). Past it a spawn waits for the user. */
  max_agents?: number
  /**
   * What a job cap reached does (absent: `defaultOnBudget`): `pause` holds every agent at its next
   * step boundary until the cap is raised; `stop` ends every live agent with `token_budget`.
   */
  on_budget?: OnBudget
  /** How long a model call waits through rate limits and overload before it fails (absent: `defaultRateLimitWaitMinutes`; 0: never waits). */
  rate_limit_wait_minutes?: number
}

/** What a job (or branch) does when it reaches its token or cost cap. */
export type OnBudget = 'pause' | 'stop'
/** In the app a cap reached pauses the job (nothing is lost); `arbor run` without a terminal stops it. */
export const defaultOnBudget: OnBudget = 'pause'

/** The runaway guards' defaults, for settings that do not name them (product.md §4). */
export const spawnGuardDefaults = { max_spawns_per_turn: 10, max_spawns_per_minute: 60 } as const
/** An agent whose process crashed is restarted from its history once, unless the job says otherwise. */
export const defaultRestartCrashed = 1
/** Subagents a job may spawn before a further one waits for the user (or is refused with nobody to ask). */
export const defaultMaxAgents = 200
/** A rate-limited or overloaded model call waits and tries again for up to 15 minutes, unless the job says otherwise. */
export const defaultRateLimitWaitMinutes = 15

/** A scripted job's settings, with any field overridden: the defaults of product.md §4. */
export const defaultSettings = (overrides: Partial<JobSettings> = {}): JobSettings => ({
  provider: 'scripted',
  model: 'scripted',
  light_model: null,
  profile: 'general',
  max_depth: 1,
  max_concurrent_children: 3,
  job_token_budget: null,
  job_cost_budget: null,
  ...overrides,
})

export type ScriptTurn = {
  /** How long the scripted "model" takes to answer, so a demo is watchable. */
  delay_ms?: number
  text?: string
  tool_calls?: { name: string; arguments: Record<string, unknown> }[]
}

export type ScriptPlan = {
  root: ScriptTurn[]
  /** Scripts for children, by the `description` of the `task` call that spawns them. */
  children: Record<string, ScriptTurn[]>
}

export interface Job {
  id: string
  project: string
  task: string
  settings: JobSettings
  status: JobStatus
  created_at: string
  ended_at: string | null
  /** True exactly when subagent_approvals is `approve` (the flag of jobs from before the three modes). */
  auto_approve: boolean
  /** How a subagent's risky command is decided; absent in traces from before the three modes: auto_approve says. */
  subagent_approvals?: SubagentApprovals
  spawn_paused: boolean
  usage: Usage
  cost_usd: number | null
  /** Read from a trace file: shown, never controlled. */
  imported?: boolean
  /** How the job's root ended (its terminal reason), once it has: `killed` names a job the user ended. */
  end_reason?: TerminalReason | null
}

/** The part of a job its events change (projection.ts reduceJob), with the id that names it. */
export type JobProgress = Pick<
  Job,
  'id' | 'status' | 'ended_at' | 'auto_approve' | 'subagent_approvals' | 'spawn_paused' | 'usage' | 'cost_usd'
>

/** A job's subagent approval mode, for a job of any age. */
export const subagentApprovalsOf = (job: Pick<Job, 'auto_approve' | 'subagent_approvals'>): SubagentApprovals =>
  job.subagent_approvals ?? (job.auto_approve ? 'approve' : 'deny')

/** One node of the delegation tree, projected from the trace (see projection.ts). */
export interface AgentNode {
  id: string
  job_id: string
  parent_id: string | null
  depth: number
  label: string
  profile: string
  model: string | null
  task: string
  status: AgentStatus
  terminal_reason: TerminalReason | null
  current_tool: string | null
  steps: number
  max_steps: number | null
  total_token_budget: number | null
  usage: Usage
  cost_usd: number | null
  created_at: string
  started_at: string | null
  ended_at: string | null
  last_event_at: string
  /** A background child (`task` with `background: true`): its parent went on without waiting. Absent otherwise. */
  background?: boolean
  /** What a `rate_limited` or `paused` agent waits for (its last `agent.wait` start). Absent when it does not wait. */
  wait?: AgentWait
  /** Caps on what this agent and its descendants spend together (`control` set_budget). Absent when it has none. */
  branch_budget?: BranchBudget
}

/** A branch's caps: tokens and USD; null: no cap of that kind. */
export type BranchBudget = { tokens: number | null; cost_usd: number | null }

/** A wait as the node shows it: why, since when, until when (null: until the user acts), and what was said. */
export interface AgentWait {
  reason: WaitReason
  since: string
  until: string | null
  message: string
}
