import { z } from 'zod'
import { envelopeSchema, eventTypeSchema, terminalReasonSchema } from '../trace/events'
import { usageSchema } from '../trace/usage'
import { maxApprovalMessage, maxSteerMessage } from '../api/job-limits'

/**
 * Messages between the supervisor and an agent process: discriminated unions on `type`,
 * parsed with zod on receipt in both directions.
 */
export const profileSchema = z.object({
  name: z.string(),
  description: z.string(),
  system_prompt: z.string(),
  tools: z.array(z.string()),
  max_steps: z.number().int().positive(),
  context_token_budget: z.number().int().positive().nullable(),
  total_token_budget: z.number().int().positive().nullable(),
  model: z.string(),
  result_contract: z.enum(['text', 'explore']),
  can_delegate: z.boolean(),
  isolation: z.literal('worktree').optional(),
  mcp_servers: z.array(z.string()).optional(),
  mcp_trusted: z.array(z.string()).optional(),
})

/** Provider-neutral history messages and tools (providers/types.ts), as they cross the pipe. */
const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() })
export const providerMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), tool_calls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), content: z.string(), tool_call_id: z.string() }),
])
const toolDefinitionSchema = z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })
export const providerEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('tool_call'), call: toolCallSchema }),
  z.object({
    type: z.literal('finish'),
    usage: usageSchema,
    cost_usd: z.number().nullable(),
    finish_reason: z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'other']),
  }),
])

export const agentInitSchema = z.object({
  agent_id: z.string(),
  job_id: z.string(),
  depth: z.number().int().nonnegative(),
  project_dir: z.string(),
  profile: profileSchema,
  /** The rendered first user message: task, structured context, workspace block. */
  first_message: z.string(),
  /**
   * Set when the agent continues after it ended (a follow-up, a parent's `resume`): its history as
   * its loop last held it, rebuilt from the trace, and the tool results its last message still
   * waits for. `first_message` is then the new message.
   */
  resume: z
    .object({
      history: z.array(providerMessageSchema).min(1),
      closing: z.array(providerMessageSchema),
      /** A restart after a crash: no new message; the model call it was making is made again. */
      restart: z.boolean().optional(),
      /**
       * Its children still running that no call of the new process waits for: they count as its
       * background children (await_tasks waits for them, it may not finish before they end).
       */
      running_children: z.array(z.object({ agent_id: z.string(), description: z.string() })).optional(),
      /**
       * A resumed interrupted job: tool calls of its last assistant message that were waiting for
       * an approval nobody decided. They are run again (and so ask again) instead of being answered.
       */
      rerun: z.array(toolCallSchema).optional(),
      /** Background children that ended before the interruption and whose envelope its model never saw. */
      ended_children: z.array(z.object({ description: z.string(), envelope: envelopeSchema })).optional(),
    })
    .optional(),
  /** The profiles this agent may spawn, listed in the `task` tool's description. */
  spawnable_profiles: z.string().optional(),
  /** How often the process says it is alive (`heartbeat`), whatever it is doing; absent: every 5 s. */
  heartbeat_ms: z.number().int().positive().optional(),
  /**
   * Which model the agent's calls go to, for its records. The supervisor makes every model call
   * (`model_call` below): no agent process ever holds a provider key, a base URL or a script.
   */
  provider: z.object({ kind: z.enum(['scripted', 'openai', 'anthropic']), model: z.string() }),
  /**
   * How `bash` runs: inside the OS sandbox (the default) or, when the job says so, without it.
   * `protected_paths` are hidden from commands besides the built-in secrets (~/.ssh, …):
   * Arbor's own data folder above all.
   */
  sandbox: z
    .object({
      mode: z.enum(['sandboxed', 'off']),
      network: z.boolean(),
      protected_paths: z.array(z.string()),
    })
    .optional(),
  /**
   * The MCP tools this agent may call (its profile's servers' tools its allowlist lets through),
   * as their servers list them; each call is an `mcp_call` the supervisor makes. `trusted` ones
   * run without approval.
   */
  mcp_tools: z
    .array(
      z.object({
        name: z.string(),
        server: z.string(),
        tool: z.string(),
        description: z.string(),
        input_schema: z.record(z.string(), z.unknown()),
        trusted: z.boolean(),
      }),
    )
    .optional(),
})
export type AgentInit = z.infer<typeof agentInitSchema>
export type McpToolInit = NonNullable<AgentInit['mcp_tools']>[number]
export type SandboxPolicy = NonNullable<AgentInit['sandbox']>

export const taskRequestSchema = z.object({
  description: z.string().min(1),
  prompt: z.string().min(1),
  subagent_type: z.string().min(1),
  model: z.enum(['main', 'light']).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  /** Return at once; the child's envelope comes later as `background_end`. */
  background: z.boolean().optional(),
  /** A token cap on the child's branch (it and its descendants), clamped to what the job has left. */
  budget_tokens: z.number().int().positive().optional(),
  /** The child works in its own git worktree on its own branch, made from the parent's state now (worktrees/worktrees.ts). */
  isolation: z.literal('worktree').optional(),
})
export type TaskRequest = z.infer<typeof taskRequestSchema>

export const toSupervisorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /**
   * The process is alive: sent every `heartbeat_ms` from `start` on, during a long tool call too
   * (its event loop is free while a command runs). Never traced; the supervisor records only
   * when an agent goes quiet for too long and when it beats again (`agent.health`).
   */
  z.object({ type: z.literal('heartbeat') }),
  /**
   * One model call, made by the supervisor; answered by `model_event`s, then a finish or a
   * `model_error`. It carries what changed since the agent's previous call (model-history.ts):
   * the first `history_kept` messages of that call's history, then `messages`; `tools` when they changed.
   */
  z.object({
    type: z.literal('model_call'),
    call_id: z.string(),
    history_kept: z.number().int().nonnegative(),
    messages: z.array(providerMessageSchema),
    tools: z.array(toolDefinitionSchema).optional(),
  }),
  z.object({ type: z.literal('model_cancel'), call_id: z.string() }),
  /** A trace event; the supervisor stamps job, agent, parent and depth. */
  z.object({
    type: z.literal('event'),
    event_type: eventTypeSchema,
    ts: z.string(),
    data: z.record(z.string(), z.unknown()),
    /** `file.change` only: the versions it names (base64), stored with it; the supervisor checks each against its hash. */
    contents: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('spawn'), call_id: z.string(), request: taskRequestSchema }),
  /**
   * The parent's `task` call with `resume`: its finished child `agent_id` goes on from its history
   * with `prompt`. Answered by a `spawn_result` for `call_id`, as a spawn is.
   */
  z.object({ type: z.literal('resume_child'), call_id: z.string(), agent_id: z.string().min(1), prompt: z.string().min(1) }),
  /** The parent's `merge_branch` call: its worktree child `agent_id`'s branch into its folder. Answered by a `merge_result`. */
  z.object({ type: z.literal('merge_branch'), call_id: z.string(), agent_id: z.string().min(1) }),
  z.object({
    type: z.literal('approval'),
    approval_id: z.string(),
    tool: z.string(),
    command: z.string(),
    reason: z.string(),
  }),
  /**
   * A process group the agent started (a `bash` command) or saw end: the supervisor ends every
   * group still running when the agent ends, however it ends.
   */
  /** A call of an MCP tool (`mcp__server__tool`), made by the supervisor; answered by an `mcp_result`. */
  z.object({
    type: z.literal('mcp_call'),
    call_id: z.string(),
    server: z.string(),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal('process'), pgid: z.number().int().positive(), running: z.boolean() }),
  /**
   * A command whose file changes are found by comparing the folder (`bash`, an MCP call) opens its
   * window (`running`: before the first listing) or closes it (after its changes were sent): the
   * supervisor marks changes made while another agent's command ran in the same folder.
   */
  z.object({ type: z.literal('command'), call_id: z.string().min(1).max(200), running: z.boolean() }),
  /**
   * How the agent ended, and nothing it counted: the supervisor keeps the one account of an agent's
   * steps, usage, cost and tool calls, from the calls it makes (`llm.call`) and the trace events it
   * records (`tool.call`).
   */
  z.object({
    type: z.literal('done'),
    outcome: z.object({
      status: z.enum(['completed', 'partial', 'failed']),
      terminal_reason: terminalReasonSchema,
      result: z.unknown(),
      summary: z.string(),
    }),
  }),
])
export type ToSupervisor = z.infer<typeof toSupervisorSchema>
export type AgentOutcome = Extract<ToSupervisor, { type: 'done' }>['outcome']

/**
 * What one write on the pipe from an agent carries: one message, or several sent together, in
 * order (agent/channel.ts). A step's tool events and its next model call then cost one write and
 * one wake-up of the supervisor rather than one each. Each message is still parsed on its own, so
 * a bad one is dropped alone; a nested array is not unpacked.
 */
export type AgentPacket = ToSupervisor | ToSupervisor[]

export function packetMessages(packet: unknown): unknown[] {
  return Array.isArray(packet) ? packet : [packet]
}

export const mergeResultSchema = z.union([
  z.object({ ok: z.literal(true), branch: z.string(), files: z.array(z.string()) }),
  z.object({
    ok: z.literal(false),
    branch: z.string(),
    conflicts: z.array(z.object({ path: z.string(), hunks: z.array(z.string()) })),
  }),
  z.object({ error: z.string() }),
])
export type MergeResult = z.infer<typeof mergeResultSchema>

export const toAgentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), init: agentInitSchema }),
  /** Events of one model call, in order; the last of a call is a `finish`. */
  z.object({ type: z.literal('model_event'), call_id: z.string(), events: z.array(providerEventSchema) }),
  /** The call failed; `code` is a ProviderError code (the loop compacts on `context_length`). */
  z.object({ type: z.literal('model_error'), call_id: z.string(), code: z.string(), message: z.string(), status: z.number().nullable() }),
  z.object({
    type: z.literal('spawn_result'),
    call_id: z.string(),
    result: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), envelope: envelopeSchema }),
      z.object({ ok: z.literal(false), error: z.string() }),
    ]),
  }),
  z.object({
    type: z.literal('approval_result'),
    approval_id: z.string(),
    decision: z.enum(['approved', 'denied']),
    by: z.enum(['user', 'auto_approve', 'auto_deny']).optional(),
    /** What the user said with a denial, for the model to take another route. */
    message: z.string().max(maxApprovalMessage).optional(),
  }),
  /**
   * A background spawn was granted: the `task` call returns now, saying whether the child started
   * or waits (queued behind running children, or held while spawning is paused).
   */
  z.object({
    type: z.literal('spawn_started'),
    call_id: z.string(),
    agent_id: z.string(),
    status: z.enum(['started', 'queued', 'held']),
  }),
  /** What a `merge_branch` did: merged (the files), a conflict (nothing applied), or why it could not. */
  z.object({ type: z.literal('merge_result'), call_id: z.string(), result: mergeResultSchema }),
  /** What an `mcp_call` gave: the tool's text (`is_error`: the tool said it failed), or why there is none. */
  z.object({
    type: z.literal('mcp_result'),
    call_id: z.string(),
    result: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), output: z.string(), is_error: z.boolean() }),
      z.object({ ok: z.literal(false), error: z.string() }),
    ]),
  }),
  /** A background child ended (or its spawn was cancelled): its envelope, sent once. */
  z.object({ type: z.literal('background_end'), agent_id: z.string(), envelope: envelopeSchema }),
  /**
   * A finished child the user followed up ended again while this agent runs: its new envelope,
   * delivered before this agent's next model call as background results are.
   */
  z.object({ type: z.literal('child_result'), agent_id: z.string(), description: z.string(), envelope: envelopeSchema }),
  /** The user's message to this agent: delivered before its next model call, as a user message. */
  z.object({ type: z.literal('steer'), steer_id: z.string(), text: z.string().min(1).max(maxSteerMessage), sent_at: z.string() }),
  /**
   * The user asks the agent to finish now: told at its next step boundary, before its next model
   * call; it then has `steps_allowed` model calls to complete (the supervisor ends it after them).
   */
  z.object({
    type: z.literal('wrap_up'),
    wrap_up_id: z.string(),
    requested_at: z.string(),
    steps_allowed: z.number().int().positive(),
  }),
])
export type ToAgent = z.infer<typeof toAgentSchema>
export type McpResult = Extract<ToAgent, { type: 'mcp_result' }>['result']
