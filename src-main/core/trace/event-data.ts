import { z } from 'zod'
import { agentStatusSchema, jobStatusSchema, terminalReasonSchema, waitOutcomes, waitReasonSchema } from './statuses'
import { usageSchema } from './usage'
import { fileChangeKindSchema, fileContentCapBytes } from './file-changes'

/**
 * The `data` of each event type of trace format version 1, one schema per type (product.md §6).
 * events.ts joins them into the discriminated union every reader parses with; docs/trace.schema.json
 * is generated from that union (scripts/trace-schema.ts).
 *
 * Objects are loose: a key this version does not know is kept, not refused, so a trace written by
 * a later Arbor still imports and exports unchanged. Every key named here is checked.
 */

const jobStatus = jobStatusSchema
const agentStatus = agentStatusSchema
const terminalReason = terminalReasonSchema
const count = z.number().int().nonnegative()
const cost = z.number().nonnegative().nullable()
const millis = z.number().nonnegative()

export const jobSettingsSchema = z
  .looseObject({
    provider: z.enum(['scripted', 'openai', 'anthropic', 'openai_compatible']),
    model: z.string(),
    light_model: z.string().nullable(),
    base_url: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "an OpenAI- or Anthropic-compatible server; null: the provider's default" }),
    no_key: z.boolean().optional().meta({ description: 'no API key is sent: the base URL is a server that needs none' }),
    profile: z.string(),
    max_depth: count,
    max_concurrent_children: z.number().int().positive(),
    job_token_budget: count.nullable(),
    job_cost_budget: cost,
    agent_timeout_ms: z.number().int().positive().nullable().optional().meta({ description: 'wall-clock limit per agent' }),
    subagent_timeout_ms: z
      .number()
      .int()
      .positive()
      .nullable()
      .optional()
      .meta({ description: 'older traces: wall-clock limit per subagent' }),
    script: z.looseObject({}).optional().meta({ description: "the scripted provider's plan (scripted jobs only)" }),
    allow_network: z.boolean().optional(),
    no_sandbox: z.boolean().optional(),
    max_spawns_per_turn: count.optional(),
    max_spawns_per_minute: count.optional(),
    max_agents: count.optional().meta({
      description:
        'subagents the job may spawn, the root not counted (absent: 200; 0: no cap); past it a spawn is held for the user, or refused',
    }),
    rate_limit_wait_minutes: z.number().nonnegative().optional().meta({
      description:
        'how long a rate-limited or overloaded model call waits and tries again before it fails, in minutes (absent: 15; 0: never)',
    }),
    restart_crashed: count
      .optional()
      .meta({ description: 'how many times an agent whose process crashed is restarted from its history (absent: 1; 0: never)' }),
    on_budget: z
      .enum(['pause', 'stop'])
      .optional()
      .meta({ description: 'what a cap reached does: pause every agent until it is raised, or stop them (absent: pause)' }),
  })
  .meta({ id: 'settings', description: "The job's settings. Never holds API keys." })

/** A job's or a branch's caps, as `set_budget` records them. */
const budgetCaps = z
  .looseObject({ tokens: count.nullable(), cost_usd: cost })
  .meta({ id: 'budget_caps', description: 'a token cap and a cost cap in USD; null: no cap' })

const usage = usageSchema.meta({
  id: 'usage',
  description: 'Token counts after OpenTelemetry gen_ai.usage.*: input_tokens counts every prompt token, cached ones included.',
})

const toolCall = z.looseObject({
  id: z.string(),
  name: z.string(),
  arguments: z.string().meta({ description: 'raw JSON text as the model sent it' }),
})

/** What every subagent.* event says about the child (supervisor/runtime.ts childEventData). */
const spawn = {
  call_id: z.string().nullable().meta({ description: "id of the parent's `task` tool call" }),
  child_agent_id: z.string().meta({ description: 'id the child has (or would have had) in the tree' }),
  profile: z.string(),
  description: z.string().meta({ description: "the task call's short description; the child's label" }),
  task: z.string().meta({ description: 'the prompt given to the child' }),
  background: z
    .literal(true)
    .optional()
    .meta({ description: "`task` with `background: true`: the parent's call returned at once; the envelope came later" }),
}
const spawnReason = z.string().meta({ description: 'why the child is held, queued or denied' })

export const envelopeDataSchema = z
  .looseObject({
    status: agentStatus,
    profile: z.string(),
    agent_id: z.string(),
    summary: z.string(),
    result: z.unknown(),
    terminal_reason: terminalReason,
    stats: z.looseObject({
      steps: count,
      tool_calls: count,
      input_tokens: count,
      output_tokens: count,
      cost_usd: cost,
      model: z.string().nullable(),
      duration_ms: millis,
    }),
    wrapped_up: z.boolean().optional().meta({ description: 'the agent was asked to wrap up before it ended (absent: it was not)' }),
    branch: z.string().optional().meta({ description: "an isolated child's git branch, its work committed on it (absent: no worktree)" }),
    changed_files: z
      .array(z.string())
      .optional()
      .meta({ description: "the files its branch changed since it forked from its parent's state, relative to the repository's top" }),
  })
  .meta({ description: "the child's result envelope, as returned to the parent's `task` call" })

/** A git worktree's life (worktrees/worktrees.ts); recorded on the child agent that owns it. */
const worktreeData = z.looseObject({
  action: z.enum(['created', 'committed', 'merged', 'conflict', 'discarded', 'removed']).meta({
    description:
      "`created`: the child's worktree and branch were made from its parent's state; `committed`: the child ended and its work was committed on its branch; `merged`: the branch was applied to the parent's tree; `conflict`: a merge found conflicts and applied nothing; `discarded`: the worktree was removed without merging (the branch is kept); `removed`: a clean worktree was removed after its merge",
  }),
  branch: z.string(),
  path: z.string().meta({ description: 'the worktree folder' }),
  files: z.array(z.string()).optional().meta({ description: 'committed, merged: the files changed, relative to the repository top' }),
  conflicts: z
    .array(z.looseObject({ path: z.string(), hunks: z.array(z.string()) }))
    .optional()
    .meta({ description: 'conflict: each conflicting file with its conflicting hunks as git marks them' }),
  base: z.string().optional().meta({ description: "created: the fork point, a commit of the parent's state with its uncommitted changes" }),
  parent_dir: z.string().optional().meta({ description: "created: the parent's project folder, which a merge applies to" }),
  project_dir: z.string().optional().meta({ description: "created: the child's project folder in the worktree" }),
  parent_branch: z.string().optional().meta({
    description: "created: the worktree the parent works in, when it is in one (a merge's file.change events carry it as their branch)",
  }),
  commit: z.string().optional().meta({ description: "committed: the branch's commit" }),
  by: z
    .enum(['parent', 'user'])
    .optional()
    .meta({ description: "merged, conflict, discarded: the parent's merge_branch call or the user" }),
})

export const eventDataSchemas = {
  'job.start': z.looseObject({ task: z.string(), settings: jobSettingsSchema }),
  'job.end': z.looseObject({
    status: jobStatus,
    reason: terminalReason.optional().meta({
      description: "the root agent's terminal reason (`killed`: the user ended the job); absent in traces from before it was written",
    }),
    usage: usage.meta({ description: 'summed over every agent of the job' }),
    cost_usd: cost,
  }),
  'agent.start': z.looseObject({
    profile: z.string(),
    model: z.string().nullable(),
    label: z.string(),
    task: z.string(),
    tools: z.array(z.string()),
    max_steps: count.nullable(),
    context_token_budget: count.nullable(),
    total_token_budget: count.nullable(),
    project_instructions: z
      .looseObject({ file: z.string(), bytes: count, truncated: z.boolean() })
      .optional()
      .meta({ description: "the root only: the project's AGENTS.md or CLAUDE.md that went into its system prompt" }),
    background: z.literal(true).optional().meta({ description: 'a background child: its parent went on without waiting for it' }),
  }),
  'agent.end': z.looseObject({
    status: agentStatus,
    terminal_reason: terminalReason,
    result: z.unknown().meta({ description: "the agent's result: text, or the JSON of its result contract, or null" }),
    summary: z.string(),
    usage,
    cost_usd: cost,
    steps: count,
    tool_usage: z.record(z.string(), count).meta({ description: 'tool name → number of calls' }),
    duration_ms: millis,
    wrapped_up: z.boolean().optional().meta({ description: 'the agent was asked to wrap up before it ended (absent: it was not)' }),
    interrupted: z
      .literal(true)
      .optional()
      .meta({ description: 'written by the sweep of an interrupted job (its process was gone), not by the agent: resumeJob continues it' }),
    interrupted_status: agentStatus
      .optional()
      .meta({ description: 'with interrupted: what the agent was doing then (running, waiting_approval, held, queued)' }),
  }),
  'agent.wrap_up': z.looseObject({
    phase: z.enum(['requested', 'delivered']).meta({
      description:
        '`requested`: the user asked (the agent or an ancestor); `delivered`: the agent took the request in at a step boundary, before its next model call',
    }),
    by: z.string().meta({ description: 'who asked: `user`' }),
    target: z.string().meta({ description: 'the agent the user asked to wrap up: this one, or an ancestor whose subtree it is in' }),
    requested_at: z.string().meta({ format: 'date-time' }),
    delivered_at: z.string().optional().meta({ format: 'date-time', description: '`delivered` only' }),
    steps_allowed: count
      .optional()
      .meta({ description: '`delivered` only: model calls the agent has left to finish; past them it ends `killed`' }),
  }),
  'agent.resume': z.looseObject({
    by: z.enum(['user', 'parent']).meta({ description: "`user`: a follow-up; `parent`: its parent's `task` call with `resume`" }),
    text: z.string().meta({ description: 'the new message the agent continues with' }),
    call_id: z.string().optional().meta({ description: "by parent: the parent's `task` call that resumed it" }),
    history_messages: count.meta({ description: 'the messages of its earlier history it continues from, rebuilt from this trace' }),
    previous_status: agentStatus.meta({ description: 'how it had ended' }),
    label: z.string().optional().meta({ description: "the agent's label, as its agent.start gave it" }),
  }),
  'agent.health': z.looseObject({
    state: z.enum(['unresponsive', 'responsive']).meta({
      description: '`unresponsive`: its process said nothing (not even a heartbeat) for the threshold (30 s); `responsive`: it spoke again',
    }),
    last_heartbeat_at: z.string().meta({ format: 'date-time', description: 'when its process last said anything' }),
    silent_ms: millis.meta({ description: 'how long it had been silent when this was recorded' }),
  }),
  'agent.restart': z.looseObject({
    cause: z.enum(['crashed', 'interrupted', 'user']).meta({
      description:
        'why it goes on in a new process: its process exited unexpectedly (crashed), its job was interrupted and resumed, or the user restarted it (restartAgent; not counted against restart_crashed)',
    }),
    code: z.number().nullable().optional().meta({ description: "the process's exit code" }),
    signal: z.string().nullable().optional().meta({ description: 'the signal that ended it' }),
    from_step: count.meta({ description: 'the model calls it had made: the new process goes on from its history after them' }),
    restart: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: 'crashed or user: which restart of this agent this is (1 for the first), counted apart for each cause' }),
    restarts_allowed: count
      .optional()
      .meta({ description: "crashed or user: the job's restart_crashed (which a user's restart does not use)" }),
    label: z.string().optional().meta({ description: "interrupted: the agent's label, as its agent.start gave it" }),
    rerun_calls: z
      .array(z.string())
      .optional()
      .meta({ description: 'interrupted: tool calls that waited for an approval never decided; they run again and ask again' }),
  }),
  'file.change': z.looseObject({
    path: z.string().meta({ description: "the file, relative to the agent's project folder, with `/` separators" }),
    kind: fileChangeKindSchema,
    from_path: z.string().optional().meta({ description: 'renamed: the path it had before' }),
    by_tool_call: z
      .string()
      .nullable()
      .meta({ description: 'the tool call (`tool.call` call_id) that made the change; null when no tool call of the agent did' }),
    tool: z.string().meta({ description: 'the tool that made it (`write_file`, `edit_file`, `bash`, …)' }),
    bytes_before: count.nullable().meta({ description: 'its size before; null when it did not exist (created)' }),
    bytes_after: count.nullable().meta({ description: 'its size after; null when it no longer exists (deleted)' }),
    hash_before: z
      .string()
      .nullable()
      .meta({ description: 'SHA-256 (hex) of the content before; null when it did not exist or was not read' }),
    hash_after: z.string().nullable().meta({ description: 'SHA-256 (hex) of the content after; null when it no longer exists' }),
    content_stored: z.boolean().meta({
      description: `whether both versions' contents are in the store (\`file_contents\`, by hash); false for a file over ${fileContentCapBytes} bytes or one that could not be read`,
    }),
    concurrent_with: z
      .array(z.looseObject({ agent_id: z.string(), call_id: z.string() }))
      .optional()
      .meta({
        description:
          "`bash` and MCP calls: other agents' commands that ran in the same folder while this one did (their tool calls); the change may be theirs. Set by the supervisor from the agents' command windows",
      }),
    branch: z.string().optional().meta({
      description:
        "the git worktree the path is in, by its branch (`arbor/<job>/<label>-<id>`): the agent works in an isolated child's worktree; absent: the job's project folder. Set by the supervisor, never taken from an agent process. A merge's changes (tool `merge`) are in the parent's folder",
    }),
  }),
  'agent.wait': z.looseObject({
    phase: z.enum(['start', 'end']).meta({
      description: "`start`: the supervisor holds the agent's next model call or spawn; `end`: it lets it go (or the agent ended)",
    }),
    reason: waitReasonSchema.meta({
      description:
        "`rate_limit`: the provider said 429/529/503/overloaded; `job_budget`/`branch_budget`: the job's or the branch's cap is reached",
    }),
    message: z.string().optional().meta({ description: 'start: what the provider said, or which cap was reached (redacted)' }),
    until: z
      .string()
      .nullable()
      .optional()
      .meta({ format: 'date-time', description: 'start: when it tries again; null: when the user acts (raises the cap)' }),
    provider: z.string().optional().meta({ description: 'rate_limit: the provider kind' }),
    status: z.number().int().nullable().optional().meta({ description: "rate_limit: the answer's HTTP status" }),
    attempt: z.number().int().positive().optional().meta({ description: 'rate_limit: which wait of this call this is (1 for the first)' }),
    outcome: z.enum(waitOutcomes).optional().meta({
      description:
        'end: `retried` (the wait passed), `retry_now` (the user), `raised` (a cap raised), `gave_up` (the wait limit passed; the call fails), `ended` (the agent ended)',
    }),
    waited_ms: millis.optional().meta({ description: 'end: how long it waited' }),
  }),
  message: z.looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string(),
    tool_calls: z.array(toolCall).optional(),
    tool_call_id: z.string().optional(),
    by: z.enum(['user', 'arbor']).optional().meta({
      description:
        '`user`: a message the user sent the running agent (steer), delivered at a step boundary; `arbor`: one Arbor wrote (background results, a refused finish)',
    }),
    background_results: z
      .array(z.string())
      .optional()
      .meta({ description: 'by arbor: the background children whose envelopes this message delivers, by agent id' }),
    steer_id: z.string().optional(),
    sent_at: z.string().optional().meta({ description: 'when the user sent it (steer messages)' }),
    delivered_at: z
      .string()
      .optional()
      .meta({ description: 'when the agent took it in, before its next model call (steer and background-result messages)' }),
    wrap_up_id: z
      .string()
      .optional()
      .meta({ description: "the user's request to wrap up, as the agent was told it (with by: user; see agent.wrap_up)" }),
  }),
  'llm.call': z.looseObject({
    provider: z.string(),
    model: z.string(),
    usage,
    cost_usd: cost,
    duration_ms: millis,
    finish_reason: z.string().nullable(),
    response_id: z.string().optional().meta({ description: "the provider's id of the response, when it sent one" }),
    response_model: z.string().optional().meta({ description: 'the model that answered, as the provider named it' }),
    aborted: z
      .string()
      .optional()
      .meta({ description: 'why the supervisor cut the call short (budget, kill); usage is what was known then' }),
  }),
  'tool.call': z.looseObject({
    call_id: z.string(),
    name: z.string(),
    arguments: z.unknown().meta({ description: 'parsed JSON arguments, or the raw text when it is not valid JSON' }),
  }),
  'tool.result': z.looseObject({
    call_id: z.string(),
    name: z.string(),
    ok: z.boolean(),
    output: z.string(),
    truncated: z.boolean(),
    duration_ms: millis,
  }),
  'subagent.request': z.looseObject(spawn),
  'subagent.held': z.looseObject({
    ...spawn,
    reason: spawnReason.optional(),
    limit: z.enum(['max_agents', 'max_spawns_per_turn']).optional().meta({
      description:
        'the job setting the spawn is past: it waits for the user to allow it (control allow_spawn) or cancel it, and resuming spawning does not start it (absent: held while spawning is paused)',
    }),
  }),
  'subagent.queued': z.looseObject({ ...spawn, reason: spawnReason.optional() }),
  'subagent.denied': z.looseObject({ ...spawn, reason: spawnReason }),
  'subagent.start': z.looseObject({
    ...spawn,
    task: spawn.task.optional(),
    resumed: z
      .boolean()
      .optional()
      .meta({ description: 'the parent resumed this finished child (`task` with `resume`); `task` is the new prompt' }),
  }),
  'subagent.end': z.looseObject({ ...spawn, task: spawn.task.optional(), envelope: envelopeDataSchema }),
  'approval.request': z.looseObject({
    approval_id: z.string(),
    tool: z.string(),
    command: z.string(),
    reason: z.string().meta({ description: 'why the command is risky' }),
    path: z.array(z.string()).optional().meta({ description: 'the labels from the root down to the asking agent' }),
    sandboxed: z.boolean().optional().meta({ description: 'the command runs in the OS sandbox (false: the job runs without it)' }),
  }),
  'approval.decision': z.looseObject({
    approval_id: z.string(),
    decision: z.enum(['approved', 'denied']),
    by: z.string().meta({ description: '`user`, `auto_approve` or `auto_deny`' }),
    reason: z.string().optional().meta({ description: 'set when the request was closed because its agent ended' }),
    scope: z
      .enum(['once', 'job'])
      .optional()
      .meta({ description: '`job`: the same command is approved for the rest of the job, from any agent (absent: once)' }),
    message: z.string().optional().meta({ description: 'what the user said to the agent with a denial' }),
  }),
  control: z.looseObject({
    action: z.enum([
      'pause',
      'resume',
      'kill',
      'restart',
      'cancel_spawn',
      'allow_spawn',
      'auto_approve',
      'edit_spawn',
      'resume_job',
      'set_budget',
      'revert_changes',
    ]),
    target: z.string().meta({ description: 'an agent id, a job id, or `all`' }),
    value: z.unknown().meta({
      description:
        'the new value: true/false for pause; for auto_approve the subagent approval mode: true (approve), false (deny) or "ask"; for edit_spawn the prompt the held or queued child will start with; for resume_job (an interrupted job resumed, target the job) true; for allow_spawn the limit the child starts past; for set_budget the caps ({tokens, cost_usd}, null: none) of the job (target a job id) or of the branch under an agent; for revert_changes {subtree, files}: the agent\'s (or its subtree\'s) changes the user reverted, and the paths put back',
    }),
    previous: z.union([z.string(), budgetCaps.nullable()]).optional().meta({
      description: 'edit_spawn: the prompt the child had before the edit; set_budget: the caps before (null: the branch had none)',
    }),
    requested: budgetCaps.optional().meta({
      description: 'set_budget by a parent: the caps its `task` call asked for, before they were clamped to what the job has left',
    }),
    by: z.string().meta({ description: '`user`, or `parent` for a branch budget its parent gave in `task`' }),
  }),
  'context.compact': z
    .looseObject({
      reason: z.string().optional(),
      before_messages: count.optional(),
      after_messages: count.optional(),
      removed_messages: count.optional(),
      before_tokens: count.optional(),
      after_tokens: count.optional(),
      budget: count.nullable().optional(),
      note: z.string().optional(),
    })
    .meta({ description: 'details of a context compaction' }),
  'budget.warning': z.looseObject({
    tokens: count.optional(),
    cost_usd: cost.optional(),
    token_budget: count.nullable().optional(),
    cost_budget: cost.optional(),
    share: z.number().nonnegative().optional().meta({ description: 'the largest share of a cap spent, 0–1' }),
  }),
  error: z.looseObject({
    message: z.string(),
    code: z.string().optional().meta({ description: "a provider error's code (ProviderError)" }),
    call_id: z.string().optional(),
    source: z.string().optional(),
    file: z.string().optional(),
    field: z.string().optional(),
  }),
  worktree: worktreeData,
} as const
