import type { z } from 'zod'
import type { McpResult, MergeResult, SandboxPolicy, TaskRequest, ToAgent } from '../../protocol/messages'
import type { Envelope } from '../../trace/events'
import { ArborError } from '../../errors'
import type { ChangeTracker } from '../changes/change-tracker'
import type { FileChange } from '../../protocol/file-change'

/** The supervisor's answer to a spawn request: the child's envelope, or why it did not run. */
export type SpawnResult = Extract<ToAgent, { type: 'spawn_result' }>['result']

/** A background spawn the supervisor granted: the child's id, and whether it started or waits. */
export type BackgroundStart = Omit<Extract<ToAgent, { type: 'spawn_started' }>, 'type' | 'call_id'>

/** What a `task` call gets back: a waiting child's envelope (or why it did not run), or a background child's start. */
export type SpawnOutcome = SpawnResult | { ok: true; started: BackgroundStart }

/** A background child of this agent, as the agent knows it. */
export interface BackgroundChild {
  agent_id: string
  /** The `task` call's description: the child's label. */
  description: string
}

/**
 * This agent's background children (`task` with `background: true`). Each ended child's envelope
 * is handed out once: by `await_tasks`, or else delivered before the next model call.
 */
export interface BackgroundTasks {
  /** Children started in the background that have not ended yet (as far as this agent has heard). */
  running(): BackgroundChild[]
  /** Every background child this agent has, ended or not. */
  known(): BackgroundChild[]
  /**
   * Resolves once one of `agentIds` (all when absent) has an envelope not handed out yet, or at
   * `timeoutMs`, or when `signal` aborts; takes and returns every such envelope among them.
   */
  wait(agentIds: string[] | undefined, timeoutMs: number | undefined, signal?: AbortSignal): Promise<Envelope[]>
  /** Takes the envelopes of ended children not handed out yet. */
  takeEnded(): Envelope[]
}

/** A risky action the agent wants to take, as the supervisor (and the user) sees it. */
export interface ApprovalRequest {
  tool: string
  command: string
  /** Why it is risky (the classifier's reason). */
  reason: string
}

export interface ApprovalOutcome {
  decision: 'approved' | 'denied'
  /** Who decided (`user`, `auto_approve`, `auto_deny`) when the supervisor says so; null when it does not. */
  by: string | null
  /** What the user said with a denial, when they said something. */
  message?: string
}

/** What a tool may use besides its arguments. */
export interface ToolContext {
  /** The project folder; every path is confined to its real path. */
  projectDir: string
  /** The id of the tool call being run. */
  callId: string
  signal?: AbortSignal
  /** Ask the supervisor for a child agent and wait for its envelope, or its start when in the background (the `task` tool). */
  spawn(request: TaskRequest): Promise<SpawnOutcome>
  /** This agent's background children (`await_tasks`; `attempt_completion` refuses while any runs). */
  background?: BackgroundTasks
  /** Ask the supervisor to continue a finished child of this agent with a new prompt, and wait for its new envelope. */
  resumeChild?(agentId: string, prompt: string): Promise<SpawnOutcome>
  /** Ask the supervisor to merge a worktree child's branch into this agent's folder (`merge_branch`). */
  mergeBranch?(agentId: string): Promise<MergeResult>
  /**
   * Ask the supervisor to approve a risky action and wait for the decision (the `bash` tool).
   * Rejects when the agent is stopped meanwhile. Without it, risky actions are refused.
   */
  requestApproval?(request: ApprovalRequest): Promise<ApprovalOutcome>
  /** How commands run (the job's sandbox settings); absent: sandboxed, without network. */
  sandbox?: SandboxPolicy
  /** Reports a process group a tool started (`running: true`) or saw end, so none outlives the agent. */
  trackProcess?(pgid: number, running: boolean): void
  /** Records a change this call made to a project file (a `file.change` event with its contents). */
  recordChange?(change: FileChange): void
  /** Finds the files a command changed (`bash`), one command at a time per agent. */
  changes?: ChangeTracker
  /** Tells the supervisor this call's tracked command opened (`true`) or closed its window (ChangeTracker.around). */
  commandWindow?(running: boolean): void
  /** Asks the supervisor to call an MCP server's tool and waits for its result (the `mcp__*` tools). */
  callMcp?(server: string, tool: string, args: Record<string, unknown>): Promise<McpResult>
}

/**
 * What `execute` may return instead of a string: text the tool already cut, so it need not hold
 * all of it (a command's output); `cut` characters were dropped after `output`.
 */
export interface CutOutput {
  output: string
  cut: number
}

/**
 * A tool: `parameters` validates the model's arguments (and gives the JSON Schema the model
 * sees); `execute` returns the text the model reads. `execute` is a method so a tool with a
 * specific schema fits the general `Tool` type.
 */
export interface Tool<Parameters extends z.ZodType = z.ZodType> {
  name: string
  description: string
  parameters: Parameters
  /** The JSON Schema the model sees when it is not `parameters`' (an MCP tool's, as its server gave it). */
  inputSchema?: Record<string, unknown>
  execute(args: z.output<Parameters>, context: ToolContext): Promise<string | CutOutput>
}

export const defineTool = <Parameters extends z.ZodType>(tool: Tool<Parameters>): Tool<Parameters> => tool

/** An expected failure (bad path, missing file, denied spawn): goes back to the model as text. */
export class ToolError extends ArborError<'tool_failed'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.ToolError')

  constructor(message: string) {
    super('tool_failed', message)
    this.name = 'ToolError'
  }
}

/** Node's fs errors worth a plain message to the model. */
export function describeFileError(error: unknown, path: string): ToolError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOENT':
      return new ToolError(`${path}: no such file or directory`)
    case 'ENOTDIR':
      return new ToolError(`${path}: a part of the path is not a directory`)
    case 'EISDIR':
      return new ToolError(`${path} is a directory`)
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`${path}: permission denied`)
    case 'ELOOP':
      return new ToolError(`${path}: too many levels of symbolic links`)
    default:
      return undefined
  }
}
