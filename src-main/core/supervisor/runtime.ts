import type { ProjectInstructions } from '../job/project-instructions'
import type { McpServerSpec } from '../job/mcp-config'
import type { Profile } from '../job/profiles'
import type { PriceTable } from '../providers/pricing'
import type { AgentStatus, Envelope, EventData, NewTraceEvent, TerminalReason } from '../trace/events'
import type { Job, JobSettings } from '../trace/model'
import { isLiveStatus, type SubagentApprovals, type WaitReason } from '../trace/statuses'
import { emptyUsage, type Usage } from '../trace/usage'
import type { Provider } from '../providers/types'
import type { AgentProcess } from './process-host'
import { createRedactor, providerKeyVariables, type Redactor } from '../secrets/redact'
import type { TaskRequest } from '../protocol/messages'
import { HistoryReceiver } from '../protocol/model-history'
import type { HoldingLimit } from './spawn-policy'
import type { WallClock } from './wall-clock'
import type { Worktree } from '../worktrees/worktrees'

/** Where the supervisor writes: the store's trace writer in the app, anything in tests. */
export interface TraceSink {
  createJob(job: Job): void
  /** `contents`: file versions (a `file.change`'s) stored in the same transaction as the event. */
  append(event: NewTraceEvent, contents?: readonly Uint8Array[]): void
  /**
   * A job that had ended runs again here (a follow-up): this process owns it from now on. With
   * `interrupted` (a resume), only an interrupted job; throws when another process got it first.
   */
  reopenJob?(jobId: string, options?: { interrupted?: boolean }): void
}

export interface PendingApproval {
  approvalId: string
  agent: AgentRuntime
  tool: string
  command: string
  reason: string
}

/** What a job runs with besides its settings; kept out of the trace (the key above all). */
export interface JobContext {
  /** The provider key and base URL; null for the scripted provider or when no key was found. */
  connection: { api_key: string; base_url: string | null } | null
  prices?: PriceTable
  /** The project's AGENTS.md or CLAUDE.md, for the root's system prompt. */
  instructions?: ProjectInstructions | null
  /** Folders and files commands must not read: Arbor's data folder (settings, keys, database). */
  protectedPaths?: string[]
  /**
   * Every secret the engine knows (the key store's, the provider variables'): taken out of what
   * the job's agents send as well as its own key, so a key of another provider that a command
   * printed is not traced or sent on either.
   */
  secrets?: readonly string[]
}

export interface JobRuntime {
  id: string
  project: string
  settings: JobSettings
  context: JobContext
  profiles: Record<string, Profile>
  /** The MCP servers its profiles may use (`.mcp.json`, profiles' inline ones), with their secrets; absent: none. */
  mcpServers?: Record<string, McpServerSpec>
  /** How a subagent's risky command is decided (the root's always waits for the user). */
  subagentApprovals: SubagentApprovals
  /** Commands the user approved for the whole job: the same command again, from any agent, runs without asking. */
  approvedCommands: Set<string>
  paused: boolean
  /** False once the root has ended: no more spawns. */
  active: boolean
  /** True once `job.end` is written. */
  ended: boolean
  overBudget: boolean
  budgetWarned: boolean
  root: AgentRuntime | null
  /** How the root ended (its terminal reason), written into `job.end`. */
  rootReason: TerminalReason | null
  agents: Map<string, AgentRuntime>
  approvals: Map<string, PendingApproval>
  /** When each spawn of the last minute was granted (the per-minute runaway guard). */
  spawnTimes: number[]
  /**
   * Spawns the job granted (the root not counted; a spawn held by a limit counts once allowed),
   * against its max_agents. Counted from the job's agents at its first spawn in this process.
   */
  spawned?: number
  /** The job's own key and `context.secrets`, taken out of whatever agents send before it is traced or sent to a model. */
  redactor: Redactor
}

/** The supervisor's live view of one agent; the trace is the durable one. */
export interface AgentRuntime {
  id: string
  job: JobRuntime
  parent: AgentRuntime | null
  depth: number
  profile: Profile
  label: string
  task: string
  request: TaskRequest | null
  /** The parent's `task` call that asked for this agent. */
  callId: string | null
  status: AgentStatus
  process: AgentProcess | null
  createdAt: number
  startedAt: number | null
  usage: Usage
  costUsd: number | null
  steps: number
  /** Tool calls by tool name, counted from the agent's `tool.call` events: the one count of its tool calls. */
  toolUsage: Record<string, number>
  model: string | null
  /** The newest assistant text, returned as partial output when the agent is killed. */
  lastText: string
  /** Set when the supervisor ends the agent, so its process exit is not taken for a crash; `summary` says why, when more than the reason does. */
  stopping: { status: AgentStatus; reason: TerminalReason; summary?: string } | null
  forceKillTimer: NodeJS.Timeout | null
  /** Resolves when the agent's process has exited (at once for an agent that never ran). */
  exited: Promise<void>
  children: AgentRuntime[]
  waiting: AgentRuntime[]
  ended: boolean
  /** The agent's model, made in the supervisor on its first call (it holds the key). */
  provider: Provider | null
  /** Model calls in flight, by the agent's call id. */
  calls: Map<string, AbortController>
  /** The agent's last model request, which its next call says what it keeps of. */
  history: HistoryReceiver
  /** Process groups the agent reported running (its commands): ended with the agent, however it ends. */
  groups: Set<number>
  /** Spawns asked for since the agent's last model call (the per-turn runaway guard). */
  spawnsThisTurn: number
  /** Fails the agent if its process never says ready. */
  readyTimer: NodeJS.Timeout | null
  /** The job's wall-clock limit for this agent, paused while it waits for the user; null: none. */
  clock: WallClock | null
  /** Requests waiting for the user in this agent's subtree, its own included (its clock is paused while any do). */
  userWaits: number
  /** What the supervisor holds its next model call or spawn for (supervisor/waits.ts); null when it does not. */
  wait: AgentWaitState | null
  /**
   * The user followed this finished child up while its parent runs: its next envelope reaches the
   * parent as a message (`child_result`), since no call of the parent waits for it.
   */
  reportsToParent: boolean
  /** Its own git worktree (a `task` with isolation 'worktree'); absent or null: it works in its parent's folder. */
  worktree?: Worktree | null
  /** Times its process crashed and a new one went on from its history (at most the job's restart_crashed). */
  restarts: number
  /** The user's messages sent to the agent and not delivered yet, by steer id. */
  steers: Map<string, PendingSteer>
  /** Set once the user asked the agent, or an ancestor, to wrap up. */
  wrapUp: WrapUp | null
  /** When its process last said anything (a heartbeat or any message); null while it has no process that spoke. */
  lastBeatAt: number | null
  /** Its process has been silent past the threshold (health.ts); cleared at its next message. */
  unresponsive: boolean
  /** The user asked to restart it (restartAgent): its process was killed, and its exit starts a new one. */
  restartRequested: boolean
  /** Restarts the user asked for (restartAgent), apart from the crash restarts of `restarts`. */
  userRestarts: number
  /** A held spawn past a job limit: it waits for the user to allow or cancel it (resuming spawning does not start it). */
  heldBy: { limit: HoldingLimit; reason: string } | null
  /** Caps on what this agent and its descendants may spend together (budget.ts); null: none of its own. */
  branchBudget: { tokens: number | null; cost_usd: number | null } | null
}

/** The model calls an agent told to wrap up has left to finish in (product.md §4); then it ends `killed`. */
export const wrapUpSteps = 2

export interface WrapUp {
  id: string
  /** The agent the user asked to wrap up: this one or an ancestor. */
  target: string
  requestedAt: string
  /** The agent's steps when it took the request in; null until it has. */
  deliveredAtStep: number | null
}

export interface PendingSteer {
  delivered(at: string): void
  undelivered(reason: string): void
}

/** What a job's agents send is taken out of: its own key, the secrets the engine knows, and the provider variables' keys. */
export function jobRedactor(context: JobContext, env: NodeJS.ProcessEnv): Redactor {
  return createRedactor([context.connection?.api_key, ...(context.secrets ?? []), ...providerKeyVariables.map((name) => env[name])])
}

export function newJobRuntime(
  fields: Pick<JobRuntime, 'id' | 'project' | 'settings' | 'context' | 'profiles' | 'subagentApprovals' | 'paused' | 'redactor'>,
): JobRuntime {
  return {
    ...fields,
    spawnTimes: [],
    approvedCommands: new Set(),
    active: true,
    ended: false,
    overBudget: false,
    budgetWarned: false,
    root: null,
    rootReason: null,
    agents: new Map(),
    approvals: new Map(),
  }
}

/** The job's row as first stored; the trace's events project it from there. */
export function storedJob(job: JobRuntime, task: string, now: Date): Job {
  return {
    id: job.id,
    project: job.project,
    task,
    settings: job.settings,
    status: 'running',
    created_at: now.toISOString(),
    ended_at: null,
    auto_approve: job.subagentApprovals === 'approve',
    subagent_approvals: job.subagentApprovals,
    spawn_paused: job.paused,
    usage: emptyUsage(),
    cost_usd: null,
  }
}

export function newAgentRuntime(fields: {
  id: string
  job: JobRuntime
  parent: AgentRuntime | null
  profile: Profile
  label: string
  task: string
  request: TaskRequest | null
  callId: string | null
  status: AgentStatus
  now: number
}): AgentRuntime {
  return {
    ...fields,
    depth: fields.parent ? fields.parent.depth + 1 : 0,
    process: null,
    createdAt: fields.now,
    startedAt: null,
    usage: emptyUsage(),
    costUsd: null,
    steps: 0,
    toolUsage: {},
    model: null,
    lastText: '',
    stopping: null,
    forceKillTimer: null,
    exited: Promise.resolve(),
    children: [],
    waiting: [],
    ended: false,
    provider: null,
    calls: new Map(),
    history: new HistoryReceiver(),
    groups: new Set(),
    spawnsThisTurn: 0,
    readyTimer: null,
    clock: null,
    userWaits: 0,
    wait: null,
    reportsToParent: false,
    restarts: 0,
    steers: new Map(),
    wrapUp: null,
    heldBy: null,
    lastBeatAt: null,
    unresponsive: false,
    restartRequested: false,
    userRestarts: 0,
    branchBudget: null,
  }
}

/** An agent's wait as the supervisor holds it: why, since when (epoch ms), and the status it had before. */
export interface AgentWaitState {
  reason: WaitReason
  since: number
  before: AgentStatus
}

/** A child its parent did not wait for (`task` with `background: true`). */
export const isBackground = (agent: AgentRuntime): boolean => agent.request?.background === true

export const isLive = (agent: AgentRuntime): boolean => isLiveStatus(agent.status)

export function runningChildren(agent: AgentRuntime): number {
  return agent.children.filter(isLive).length
}

/** The agent and all its descendants, children before parents. */
export function subtreePostOrder(agent: AgentRuntime): AgentRuntime[] {
  return [...agent.children.flatMap(subtreePostOrder), agent]
}

/** What every subagent.* event on the parent says about the child. */
export function childEventData(child: AgentRuntime): EventData<'subagent.request'> {
  return {
    call_id: child.callId,
    child_agent_id: child.id,
    profile: child.profile.name,
    description: child.label,
    task: child.request?.prompt ?? child.task,
    ...(child.request?.background ? { background: true as const } : {}),
  }
}

export interface Ending {
  status: AgentStatus
  terminalReason: TerminalReason
  result: unknown
  summary: string
}

export function buildEnvelope(agent: AgentRuntime, ending: Ending, now: number): Envelope {
  return {
    status: ending.status,
    profile: agent.profile.name,
    agent_id: agent.id,
    summary: ending.summary,
    result: ending.result,
    terminal_reason: ending.terminalReason,
    stats: {
      steps: agent.steps,
      tool_calls: Object.values(agent.toolUsage).reduce((sum, calls) => sum + calls, 0),
      input_tokens: agent.usage.input_tokens,
      output_tokens: agent.usage.output_tokens,
      cost_usd: agent.costUsd,
      model: agent.model,
      duration_ms: agent.startedAt === null ? 0 : now - agent.startedAt,
    },
    ...(agent.wrapUp ? { wrapped_up: true } : {}),
  }
}
