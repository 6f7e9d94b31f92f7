import { z } from 'zod'
import type { ModelPrice } from '../providers/pricing'
import type { TraceEvent } from '../trace/events'
import type { Timeline } from '../trace/timeline'
import type { ChangesView, FileDiff, RevertResult } from '../trace/change-views'
import type { AgentNode, Job } from '../trace/model'
import type { WorktreeView } from '../trace/worktree-view'
import { keyedProviderIds, newJobSchema, type KeyedProviderId, type NewJob } from './job-form'
import { isTracesEndpoint } from './otlp-endpoint'
import { maxApprovalMessage, maxModelCallsLimit, maxSpawnPrompt, maxSteerMessage } from './job-limits'
import { subagentApprovalsSchema, type SubagentApprovals } from '../trace/statuses'

/**
 * The one API between a UI (Electron renderer over IPC, or a browser over the `serve`
 * WebSocket) and the engine. Every method's input is a zod schema; the dispatcher parses
 * each request with it before any handler runs.
 */
const id = z.string().min(1).max(100)

/**
 * The export formats and the file name suffix of each (a save dialog's default, `GET
 * /export/<job>.<suffix>` under serve): Arbor's JSONL, the same with the changed files' contents
 * (`file.content` lines, as `arbor export --with-file-contents`), OTLP JSON.
 */
export const exportFormatSuffix = { jsonl: 'jsonl', jsonl_contents: 'contents.jsonl', otlp: 'otlp.json' } as const
export type ExportFormatName = keyof typeof exportFormatSuffix
const exportFormatNames = ['jsonl', 'jsonl_contents', 'otlp'] as const satisfies readonly ExportFormatName[]

export const apiContract = {
  getState: z.object({}).strict(),
  openProject: z.object({ path: z.string().min(1).max(4096) }).strict(),
  listJobs: z.object({}).strict(),
  closeProject: z.object({}).strict(),
  listRecentProjects: z.object({}).strict(),
  /** Folders whose path starts with `prefix` (the start screen's path field under `serve`). */
  completePath: z.object({ prefix: z.string().max(4096) }).strict(),
  /** The app's folder dialog; only the desktop shell answers it. */
  chooseProjectFolder: z.object({}).strict(),
  /** The app's open-trace dialog; only the desktop shell answers it. */
  chooseTraceFile: z.object({}).strict(),
  listProfiles: z.object({}).strict(),
  /**
   * The open project's MCP servers (`.mcp.json` and profiles' inline ones). With `start`, each is
   * started (stdio ones in the OS sandbox, without network), its tools listed, and stopped again.
   */
  listMcpServers: z.object({ start: z.boolean().optional() }).strict(),
  /** The new-job form's starting values: the last settings used in this project. */
  getJobDefaults: z.object({}).strict(),
  startJob: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('demo'), spawn_paused: z.boolean().optional(), auto_approve: z.boolean().optional() }).strict(),
    /** The scripted plan with the user's task (no key needed). */
    z
      .object({
        kind: z.literal('scripted'),
        task: z.string().max(20_000).optional(),
        spawn_paused: z.boolean().optional(),
        auto_approve: z.boolean().optional(),
        max_depth: z.number().int().min(0).max(8).optional(),
        max_concurrent_children: z.number().int().min(1).max(64).optional(),
      })
      .strict(),
    /** A job from the new-job form. */
    z.object({ kind: z.literal('agent'), job: newJobSchema }).strict(),
  ]),
  /**
   * The job's tree as one snapshot. With `limit`, at most that many agents a reply: the first
   * reply names the `next` page, and each later call passes it back as `page` to get the next
   * agents of the same snapshot (same `last_seq`), until `next` is null.
   */
  getTree: z
    .object({
      job_id: id,
      limit: z.number().int().min(1).max(5000).optional(),
      page: z
        .object({ snapshot: id, offset: z.number().int().min(1) })
        .strict()
        .optional(),
    })
    .strict(),
  getEvents: z
    .object({
      agent_id: id,
      after_seq: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(5000).optional(),
    })
    .strict(),
  /** The job's timeline (trace/timeline.ts), folded in main so the renderer never pulls every event. */
  getTimeline: z.object({ job_id: id }).strict(),
  /** A page of the job's events as a replay reduces them: no `message` events, every string cut short. */
  getReplayEvents: z
    .object({
      job_id: id,
      after_seq: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(5000).optional(),
    })
    .strict(),
  /** The files an agent (`subtree`: and its descendants) or, without an agent, the whole job changed, with +/− counts (trace/change-views.ts); `counts_only`: none listed, only `total` and `by_agent`. */
  getChanges: z
    .object({ job_id: id, agent_id: id.optional(), subtree: z.boolean().optional(), counts_only: z.boolean().optional() })
    .strict(),
  /** One file's diff over the same scope as getChanges; `path` and `branch` (a worktree's file) as getChanges named it. */
  getFileDiff: z
    .object({
      job_id: id,
      agent_id: id.optional(),
      subtree: z.boolean().optional(),
      path: z.string().min(1).max(4096),
      branch: z.string().min(1).max(300).optional(),
    })
    .strict(),
  /** Puts back what an ended agent (`subtree`: and its descendants) changed; refused, saying why, when a later change is in the way. */
  revertChanges: z.object({ agent_id: id, subtree: z.boolean().optional() }).strict(),
  setSpawnPaused: z.object({ job_id: id.nullable(), paused: z.boolean() }).strict(),
  killAgent: z.object({ agent_id: id }).strict(),
  /**
   * Stops a running agent and its subtree. `wrap_up`: each is told at its next step to finish and
   * report within 2 steps, then ends `killed`; `kill`: ended at once, as killAgent does.
   */
  stopAgent: z.object({ agent_id: id, mode: z.enum(['wrap_up', 'kill']) }).strict(),
  cancelSpawn: z.object({ agent_id: id }).strict(),
  /**
   * Kills a running agent's process (an unresponsive one above all) and restarts it from its
   * history in a new one, as after a crash; not counted against the job's restart_crashed.
   */
  restartAgent: z.object({ agent_id: id }).strict(),
  /**
   * Starts a spawn held by a job limit (max_agents, max_spawns_per_turn) past it. A spawn held
   * only because spawning is paused, or one that is not held, refuses it (conflict).
   */
  allowSpawn: z.object({ agent_id: id }).strict(),
  /** Ends an agent's rate-limit wait: its model call is made again at once, whatever the cooldown. */
  retryNow: z.object({ agent_id: id }).strict(),
  setAutoApprove: z.object({ job_id: id, value: z.boolean() }).strict(),
  /** How the job's subagents' risky commands are decided: denied, asked of the user, or approved. */
  setSubagentApprovals: z.object({ job_id: id, mode: subagentApprovalsSchema }).strict(),
  /**
   * `scope: 'job'` approves the same command for the rest of the job, from any agent; `message`
   * (denials only) is said to the agent with the denial.
   */
  decideApproval: z
    .object({
      approval_id: id,
      decision: z.enum(['approved', 'denied']),
      scope: z.enum(['once', 'job']).optional(),
      message: z.string().trim().min(1, 'the message is empty').max(maxApprovalMessage).optional(),
    })
    .strict()
    .refine((input) => !(input.scope === 'job' && input.decision === 'denied'), 'only an approval can be for the whole job')
    .refine((input) => !(input.message && input.decision === 'approved'), 'a message goes with a denial'),
  /**
   * A message to a running agent, delivered at its next step boundary as a user message marked as
   * the user's. Answers once it is delivered; an agent that ends first refuses it (conflict).
   */
  steerAgent: z
    .object({ agent_id: id, text: z.string().trim().min(1, 'the message is empty').max(maxSteerMessage, 'at most 32 KiB') })
    .strict(),
  /**
   * Continues an agent that ended (the root by default) with a new message: it resumes with its
   * whole history in the same job and tree. The job's caps may be raised to go on.
   */
  followUp: z
    .object({
      job_id: id,
      agent_id: id.optional(),
      text: z.string().trim().min(1, 'the message is empty').max(maxSteerMessage, 'at most 32 KiB'),
      job_token_budget: newJobSchema.shape.job_token_budget.optional(),
      job_cost_budget: newJobSchema.shape.job_cost_budget.optional(),
    })
    .strict(),
  /**
   * Resumes an interrupted job (its Arbor process quit, crashed or was killed): the agents that
   * were running go on from their histories, held and queued spawns wait again; agents that had
   * ended are not run again. A job that is not interrupted, or that another live process owns (it
   * resumed it first), is refused (conflict).
   */
  resumeJob: z.object({ job_id: id }).strict(),
  /**
   * New caps for a running job (`job_id`) or for the branch under one of its agents (`agent_id`):
   * `tokens` and/or `cost_usd`, null takes a cap away. Agents paused at a cap that is no longer
   * spent go on. Refused (conflict) for a cap not above what is spent, and for a branch cap that
   * would let the branch spend more than the job has left.
   */
  setBudget: z
    .object({
      job_id: id.optional(),
      agent_id: id.optional(),
      tokens: newJobSchema.shape.job_token_budget.optional(),
      cost_usd: newJobSchema.shape.job_cost_budget.optional(),
    })
    .strict()
    .refine((input) => (input.job_id === undefined) !== (input.agent_id === undefined), 'name a job_id or an agent_id (one of them)')
    .refine((input) => input.tokens !== undefined || input.cost_usd !== undefined, 'give tokens, cost_usd or both'),
  /**
   * A new prompt for a held or queued spawn, in place of the one its parent wrote: the child starts
   * with it. A spawn that has started, or ended, refuses it (conflict).
   */
  editSpawn: z
    .object({ agent_id: id, prompt: z.string().trim().min(1, 'the prompt is empty').max(maxSpawnPrompt, 'at most 32 KiB') })
    .strict(),
  /** Forgets a command approved for the whole job: the next one asks again. */
  revokeApprovedCommand: z.object({ job_id: id, command: z.string().min(1).max(100_000) }).strict(),
  /** `format` (exportFormatSuffix); `jsonl_contents`: JSONL with a `file.content` line for each file version its `file.change` events name (as `arbor export --with-file-contents`). */
  exportJob: z.object({ job_id: id, path: z.string().min(1).max(4096).optional(), format: z.enum(exportFormatNames).optional() }).strict(),
  /** Imports a trace JSONL read-only; the shell's dialog and drop fill in the path. */
  importTrace: z.object({ path: z.string().min(1).max(4096) }).strict(),
  getSettings: z.object({}).strict(),
  /** Write-only: the key is never sent back, only whether one is set and its last four characters. */
  setProviderKey: z
    .object({ provider: z.enum(keyedProviderIds), key: z.string().trim().min(8, 'too short for an API key').max(1000) })
    .strict(),
  clearProviderKey: z.object({ provider: z.enum(keyedProviderIds) }).strict(),
  setProviderConfig: z
    .object({
      provider: z.enum(keyedProviderIds),
      base_url: newJobSchema.shape.base_url,
      model: newJobSchema.shape.model,
      light_model: newJobSchema.shape.light_model,
    })
    .strict(),
  /** One tiny real request with the provider's saved settings (or the given base URL and model). */
  /** `key`: one typed in the form and not saved, used for this request only and never stored. */
  testConnection: z
    .object({
      provider: z.enum(keyedProviderIds),
      base_url: newJobSchema.shape.base_url.optional(),
      model: newJobSchema.shape.model.optional(),
      key: z.string().trim().min(8, 'too short for an API key').max(1000).optional(),
    })
    .strict(),
  setPrice: z
    .object({
      model: z.string().trim().min(1).max(200),
      price: z
        .object({
          input: z.number().nonnegative().max(10_000),
          output: z.number().nonnegative().max(10_000),
          cache_read: z.number().nonnegative().max(10_000),
          cache_write: z.number().nonnegative().max(10_000),
        })
        .strict(),
    })
    .strict(),
  /** Model calls in flight at once per API endpoint (provider, base URL and key), for every job from the next call on. */
  setMaxModelCalls: z
    .object({ value: z.number().int('a whole number').min(1, 'at least 1').max(maxModelCallsLimit, `at most ${maxModelCallsLimit}`) })
    .strict(),
  /** Drops an edit: a built-in model gets its built-in price back, a model the user added goes. */
  resetPrice: z.object({ model: z.string().trim().min(1).max(200) }).strict(),
  /** Where finished jobs' traces are sent over OTLP/HTTP; header values never come back. */
  getTraceExport: z.object({}).strict(),
  /**
   * Replaces the setting. A header listed without `value` keeps its stored value; headers left
   * out are deleted. An empty endpoint with `enabled: false` removes the setting.
   */
  setTraceExport: z
    .object({
      endpoint: z
        .string()
        .trim()
        .max(2048)
        .refine(
          (value) => value === '' || isTracesEndpoint(value),
          'an http:// or https:// URL without credentials, e.g. http://localhost:4318/v1/traces',
        ),
      enabled: z.boolean(),
      headers: z
        .array(
          z
            .object({
              name: z
                .string()
                .trim()
                .min(1)
                .max(200)
                .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name'),
              value: z
                .string()
                .max(8192)
                .regex(/^[^\r\n\0]*$/, 'a header value cannot hold a line break')
                .optional(),
            })
            .strict(),
        )
        .max(20),
    })
    .strict()
    .refine((input) => input.endpoint !== '' || !input.enabled, { path: ['endpoint'], message: 'sending needs an endpoint' })
    .refine((input) => new Set(input.headers.map((header) => header.name.toLowerCase())).size === input.headers.length, {
      path: ['headers'],
      message: 'a header is listed twice',
    }),
  /**
   * Applies an ended worktree child's branch to its parent's folder (the working tree, no commit).
   * On a conflict nothing is applied: the result lists each conflicting file with its hunks.
   */
  mergeBranch: z.object({ agent_id: id }).strict(),
  /** Removes an ended worktree child's worktree without merging; its branch is kept. */
  discardBranch: z.object({ agent_id: id }).strict(),
  /** Arbor's worktrees in a project's repository (default: the open project), with the agent each belongs to when known. */
  listWorktrees: z.object({ project: z.string().min(1).max(4096).optional() }).strict(),
} as const

export type { WorktreeView } from '../trace/worktree-view'
export type ApiMethod = keyof typeof apiContract
export type ApiInput<M extends ApiMethod> = z.infer<(typeof apiContract)[M]>

export interface ProjectInfo {
  path: string
  name: string
}

/** A spawn held by a job limit: its ghost says why, with Allow and Cancel. */
export interface HeldSpawn {
  agent_id: string
  limit: 'max_agents' | 'max_spawns_per_turn'
  /** As its `subagent.held` says, e.g. "job has 200 agents (max_agents)". */
  reason: string
}

/** A later page of a paged getTree snapshot: its agents from `offset` on. */
export interface TreePage {
  snapshot: string
  offset: number
}

export interface PendingApproval {
  approval_id: string
  job_id: string
  agent_id: string
  tool: string
  command: string
  reason: string
  /** The labels from the root down to the asking agent (absent in traces from before it was recorded). */
  path?: string[]
  /** False when the job runs commands without the OS sandbox; absent: not known (sandboxed unless the job says otherwise). */
  sandboxed?: boolean
}

export interface RecentProject extends ProjectInfo {
  opened_at: string
  /** The folder is gone (moved or deleted) since it was last opened. */
  missing: boolean
}

export interface ProfileInfo {
  name: string
  description: string
  /** `builtin`, or the project-relative file it came from. */
  source: string
  model: string
  can_delegate: boolean
}

/** An MCP server as Settings shows it: never its env values or headers. */
export interface McpServerInfo {
  name: string
  /** The file it is configured in, relative to the project. */
  source: string
  transport: 'stdio' | 'http'
  /** The program (stdio) or the URL without user info or query (http). */
  target: string
  /** The profiles that list it. */
  profiles: string[]
  /** `configured`: not started for this list; `started`: its tools are listed; `failed`: `error` says why. */
  status: 'configured' | 'started' | 'failed'
  error?: string
  tools?: Array<{ name: string; description: string }>
}

export interface McpServerList {
  servers: McpServerInfo[]
  /** What is wrong in `.mcp.json` or a profile's `mcpServers` (the profile errors name them too). */
  errors: Array<{ file: string; field: string; message: string }>
}

export interface ProfileList {
  profiles: ProfileInfo[]
  errors: Array<{ file: string; field: string; message: string }>
  warnings: Array<{ file: string; message: string }>
}

/** Where a provider's key comes from. The key itself never leaves the engine. */
export interface KeyInfo {
  source: 'environment' | 'stored' | 'none'
  /** The environment variable read, e.g. OPENAI_API_KEY. */
  env_var: string | null
  last4: string | null
}

export interface ProviderInfo {
  id: KeyedProviderId
  label: string
  key: KeyInfo
  /** The base URL jobs use, and where it comes from. */
  base_url: string | null
  base_url_source: 'settings' | 'environment' | 'default'
  default_base_url: string
  model: string
  light_model: string | null
}

export interface PriceRow extends ModelPrice {
  model: string
  /** `builtin` as shipped, `edited` a built-in changed by the user, `custom` a model the user added. */
  source: 'builtin' | 'edited' | 'custom'
}

export interface KeyStorageInfo {
  encrypted: boolean
  /** Shown in settings, e.g. "~/.local/share/arbor/keys.json (not encrypted, readable only by you)". */
  description: string
  /** False when keys cannot be stored here (e.g. no OS keyring for safeStorage). */
  available: boolean
}

export interface SettingsView {
  providers: ProviderInfo[]
  prices: PriceRow[]
  key_storage: KeyStorageInfo
  /** Model calls in flight at once per API endpoint (default 8). */
  max_model_calls: number
}

/** The trace export setting as the UI sees it: header names only, never their values. */
export interface TraceExportView {
  /** As saved; null when there is no setting. */
  endpoint: string | null
  /** Where spans go: the endpoint, with /v1/traces added to a bare base URL. */
  url: string | null
  enabled: boolean
  headers: { name: string; set: boolean }[]
  /** The newest automatic send of this process, or null. */
  last_send: { job_id: string; ok: boolean; message: string; at: string } | null
}

export type ConnectionTest =
  | { ok: true; latency_ms: number; model: string; answer: string }
  | { ok: false; latency_ms: number; status: number | null; message: string }

export interface ApiOutputs {
  getState: { project: ProjectInfo | null; all_paused: boolean }
  openProject: { project: ProjectInfo }
  closeProject: { project: null }
  listRecentProjects: { projects: RecentProject[] }
  completePath: { entries: string[] }
  /** `project` is null when the user dismissed the dialog. */
  chooseProjectFolder: { project: ProjectInfo | null }
  /** `job_id` is null when the user dismissed the dialog. */
  chooseTraceFile: { job_id: string | null }
  listProfiles: ProfileList
  listMcpServers: McpServerList
  getJobDefaults: { job: NewJob }
  /** `waiting`: the ids of the root agent's pending approvals, by job (ids, so live events never count one twice). */
  listJobs: { jobs: Job[]; waiting: Record<string, string[]> }
  /** `root_agent_id`: the new job's root, whose trace the UI opens at once (the main conversation). */
  startJob: { job_id: string; root_agent_id: string }
  /**
   * `last_seq`: the newest event the snapshot includes; apply live events after it. `next`: the
   * page to ask for next (a paged snapshot's agents are not all in this reply), or null.
   * `answer`: what the root agent answered once it ended (store/queries.ts `rootAnswer`), or null.
   */
  getTree: {
    job: Job
    agents: AgentNode[]
    last_seq: number
    approvals: PendingApproval[]
    /** Commands the user approved for the whole job (running jobs of this process only). */
    approved_commands: string[]
    /** Agents told to wrap up that have not ended (running jobs of this process only). */
    wrapping_up?: string[]
    /** Spawns held by a job limit, waiting for the user to allow or cancel them (running jobs of this process only). */
    held?: HeldSpawn[]
    /** Agents whose process has been silent past the threshold (`agent.health`), with when it last spoke (running jobs of this process only). */
    unresponsive?: { agent_id: string; last_heartbeat_at: string }[]
    /** The job's worktree children, with what became of each worktree (its `worktree` events). */
    worktrees?: WorktreeView[]
    answer: string | null
    next: TreePage | null
  }
  getEvents: { events: TraceEvent[] }
  getTimeline: { timeline: Timeline }
  getReplayEvents: { events: TraceEvent[] }
  getChanges: ChangesView
  getFileDiff: FileDiff
  revertChanges: RevertResult
  setSpawnPaused: { paused: boolean }
  killAgent: { killed: string[] }
  /**
   * `agents`: those told to wrap up, or killed; `cancelled`: held or queued spawns that never
   * started (wrap up); `already`: the agent was already wrapping up and nothing changed, `note` says so.
   */
  stopAgent: { mode: 'wrap_up' | 'kill'; agents: string[]; cancelled: string[]; already: boolean; note?: string }
  cancelSpawn: { cancelled: boolean }
  allowSpawn: { agent_id: string }
  restartAgent: { agent_id: string }
  /** `retried`: the agent was waiting for a rate limit and its call goes now; false when it was not waiting. */
  retryNow: { retried: boolean }
  setAutoApprove: { value: boolean }
  setSubagentApprovals: { mode: SubagentApprovals }
  decideApproval: { decided: boolean }
  revokeApprovedCommand: { revoked: boolean }
  steerAgent: { steer_id: string; sent_at: string; delivered_at: string }
  followUp: { job_id: string; agent_id: string }
  /** `agent_ids`: the agents that go on (running again, or held or queued again). */
  resumeJob: { job_id: string; agent_ids: string[] }
  /** The caps as they now are (null: none); `agent_id` null for the job's own. */
  setBudget: { job_id: string; agent_id: string | null; tokens: number | null; cost_usd: number | null }
  /** `prompt`: the prompt the child will start with, as recorded (redacted). */
  editSpawn: { agent_id: string; prompt: string }
  /** `path` is null when the user dismissed a save dialog. */
  exportJob: { path: string | null; lines: number }
  /** `existing`: the trace's job was already in the database, nothing was written. */
  /** `format` and `skipped` only for a Claude Code session: its lines not imported, by entry type. */
  importTrace: { job_id: string; events: number; existing: boolean; format?: 'claude-code'; skipped?: Record<string, number> }
  getSettings: SettingsView
  setProviderKey: { key: KeyInfo }
  clearProviderKey: { key: KeyInfo }
  setProviderConfig: { provider: ProviderInfo }
  testConnection: ConnectionTest
  setPrice: { prices: PriceRow[] }
  resetPrice: { prices: PriceRow[] }
  setMaxModelCalls: { max_model_calls: number }
  getTraceExport: TraceExportView
  setTraceExport: TraceExportView
  mergeBranch: MergeBranchResult
  discardBranch: { branch: string; removed: boolean }
  listWorktrees: { worktrees: WorktreeInfo[] }
}

/** A merge of a worktree child's branch: merged (the files), or a conflict (nothing applied). */
export type MergeBranchResult =
  { merged: true; branch: string; files: string[] } | { merged: false; branch: string; conflicts: { path: string; hunks: string[] }[] }

/** One of Arbor's worktrees, as git lists it, with its agent and job when this store knows them. */
export interface WorktreeInfo {
  path: string
  branch: string
  agent_id: string | null
  job_id: string | null
  /** Its agent is not running in this process (an interrupted or ended job left it). */
  left: boolean
}

export type ApiHandlers = { [M in ApiMethod]: (input: ApiInput<M>) => Promise<ApiOutputs[M]> }

/** What a subscriber receives: stored events, after their transaction committed. */
export interface ApiNotification {
  kind: 'events'
  events: TraceEvent[]
}

/**
 * What went wrong with a call. `disconnected` is the renderer's own: the connection to the
 * server was lost while the call was in flight (no server sends it).
 */
export type ApiErrorCode = 'invalid_request' | 'unknown_method' | 'not_found' | 'conflict' | 'unsupported' | 'internal' | 'disconnected'

/** Errors crossing a process, IPC or WebSocket boundary travel as plain data (api/errors.ts ApiFailure is the thrown form). */
export interface ApiError {
  code: ApiErrorCode
  message: string
  /** Field by field, when a form's input was refused (startJob). */
  fields?: Record<string, string>
}
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError }

/** What a UI may ask of either transport besides the methods. */
interface ApiExtras {
  subscribe(listener: (notification: ApiNotification) => void): () => void
  /** Desktop only: the path on disk of a file dropped on the window ('' when it has none). */
  pathForFile?(file: unknown): string
}

/** The object a UI holds: one method per contract entry, rejecting with an ApiFailure, plus a subscription. */
export type ArborApi = ApiHandlers & ApiExtras

/**
 * What the preload exposes as `window.arbor`: each method resolves to its ApiResult, the error as
 * data, because contextBridge keeps only the message of an Error it passes. The renderer turns
 * it into an ArborApi (src-renderer/src/api/bridge-client.ts).
 */
export type ArborBridge = { [M in ApiMethod]: (input: ApiInput<M>) => Promise<ApiResult<ApiOutputs[M]>> } & ApiExtras
