import { isFinishedStatus, type AgentStatus, type TraceEvent } from './events'
import type { AgentNode, JobProgress } from './model'
import { waitStatus, type SubagentApprovals } from './statuses'
import { addCost, addUsage, emptyUsage, type Usage } from './usage'

/**
 * The tree is a projection of the trace: these pure reducers turn one event into the new state
 * of the nodes it touches. The store applies them inside its write transaction; the renderer
 * applies the same functions to live event batches, so both always agree.
 */
export function reduceAgents(event: TraceEvent, get: (id: string) => AgentNode | undefined): AgentNode[] {
  switch (event.type) {
    case 'subagent.held':
    case 'subagent.queued': {
      const { data } = event
      const existing = get(data.child_agent_id)
      const status: AgentStatus = event.type === 'subagent.held' ? 'held' : 'queued'
      // Held or queued again (an interrupted job resumed): the sweep's end no longer stands.
      if (existing) return [{ ...existing, status, terminal_reason: null, ended_at: null, last_event_at: event.ts }]
      return [
        {
          ...blankNode(event.job_id, data.child_agent_id, event.ts),
          parent_id: event.agent_id,
          depth: (event.depth ?? 0) + 1,
          label: data.description || data.profile || 'subagent',
          profile: data.profile || 'general',
          task: data.task,
          status,
          ...(data.background ? { background: true } : {}),
        },
      ]
    }
    case 'agent.start': {
      if (!event.agent_id) return []
      const { data } = event
      const existing = get(event.agent_id) ?? blankNode(event.job_id, event.agent_id, event.ts)
      return [
        {
          ...existing,
          parent_id: event.parent_id,
          depth: event.depth ?? 0,
          // A ghost's label, profile and task stand when an older trace's agent.start lacks them.
          label: data.label ?? existing.label,
          profile: data.profile ?? existing.profile,
          model: data.model ?? existing.model,
          task: data.task ?? existing.task,
          max_steps: data.max_steps ?? null,
          total_token_budget: data.total_token_budget ?? null,
          status: 'running',
          started_at: event.ts,
          last_event_at: event.ts,
          ...(data.background ? { background: true } : {}),
        },
      ]
    }
    case 'control': {
      // The user's new prompt for a held or queued spawn: the ghost shows it until agent.start.
      const node = event.agent_id ? get(event.agent_id) : undefined
      if (!node || !isSpawnEdit(event)) break
      return [{ ...node, task: event.data.value as string, last_event_at: event.ts }]
    }
    default:
      break
  }
  const node = event.agent_id ? get(event.agent_id) : undefined
  if (!node) return []
  // Copy, then set: V8 copies `{ ...node }` on a fast path that `{ ...node, key }` misses (this
  // runs once per event in the renderer).
  const touched: AgentNode = { ...node }
  updateAgent(touched, event)
  return [touched]
}

/**
 * True for the events reduceAgents may create or restart a node for, or change more of it than
 * its progress (a spawn's edited prompt); any other event only updates its own agent's progress.
 */
export const createsAgent = (event: TraceEvent): boolean =>
  event.type === 'agent.start' || event.type === 'subagent.held' || event.type === 'subagent.queued' || isSpawnEdit(event)

/** A `control` that gives a held or queued spawn a new prompt (its `value`). */
const isSpawnEdit = (event: TraceEvent): boolean =>
  event.type === 'control' && event.data.action === 'edit_spawn' && typeof event.data.value === 'string'

/** The fields updateAgent may change (a test holds it to that): of an agent it alone changed, the store writes only these. */
export const agentProgressKeys = [
  'status',
  'terminal_reason',
  'current_tool',
  'steps',
  'usage',
  'cost_usd',
  'ended_at',
  'last_event_at',
  'wait',
] as const satisfies readonly (keyof AgentNode)[]

/**
 * What reduceAgents does to the event's own agent for an event that does not create one
 * (createsAgent false), done IN PLACE on `node`: the store's writer folds a batch of events into
 * one working copy per agent instead of copying the node for each event. Values inside the node
 * (its usage) are replaced, never mutated, so a copy made with `{ ...node }` is safe to update.
 */
export function updateAgent(node: AgentNode, event: TraceEvent): void {
  node.last_event_at = event.ts
  switch (event.type) {
    case 'agent.end': {
      const { data } = event
      node.status = data.status
      node.terminal_reason = data.terminal_reason
      node.current_tool = null
      node.ended_at = event.ts
      node.usage = usageOf(data.usage) ?? node.usage
      node.cost_usd = costOf(data.cost_usd)
      node.steps = data.steps
      delete node.wait
      break
    }
    case 'agent.wait': {
      const { data } = event
      if (isFinishedStatus(node.status)) break
      if (data.phase === 'start') {
        node.status = waitStatus(data.reason)
        node.wait = { reason: data.reason, since: node.wait?.since ?? event.ts, until: data.until ?? null, message: data.message ?? '' }
      } else if (node.wait?.reason === data.reason) {
        // Back to work; an approval asked for while it waited is not (a wait holds a model call or a spawn).
        node.status = 'running'
        delete node.wait
      }
      break
    }
    case 'agent.restart':
      // Its process crashed and a new one goes on: whatever tool ran was cut short. After an
      // interruption it had been ended by the sweep: it runs again, its totals carried on.
      node.current_tool = null
      if (event.data.cause === 'interrupted') {
        node.status = 'running'
        node.terminal_reason = null
        node.ended_at = null
      }
      break
    case 'agent.resume':
      // A follow-up or a parent's `resume`: the same node runs again, its totals carried on.
      node.status = 'running'
      node.terminal_reason = null
      node.current_tool = null
      node.ended_at = null
      break
    case 'llm.call':
      node.steps += 1
      node.usage = addUsage(node.usage, usageOf(event.data.usage) ?? {})
      node.cost_usd = addCost(node.cost_usd, costOf(event.data.cost_usd))
      break
    case 'tool.call':
      node.current_tool = event.data.name
      break
    case 'tool.result':
      node.current_tool = null
      break
    case 'approval.request':
      node.status = 'waiting_approval'
      break
    case 'approval.decision':
      if (node.status === 'waiting_approval') node.status = 'running'
      break
    default:
      break
  }
}

/**
 * The mode an `auto_approve` control sets: true approve, false deny, and `"ask"` ask. Format 1
 * keeps the action (a reader from before the three modes takes "ask" as not approving, which it
 * is); anything else reads as deny.
 */
export const approvalModeOfControl = (value: unknown): SubagentApprovals => (value === true ? 'approve' : value === 'ask' ? 'ask' : 'deny')

/** The `value` of the `auto_approve` control that sets `mode`. */
export const controlValueOfApprovalMode = (mode: SubagentApprovals): boolean | 'ask' => (mode === 'ask' ? 'ask' : mode === 'approve')

/** True for the events reduceJob may change a job for; it returns the job itself for any other. */
export const changesJob = (event: TraceEvent): boolean =>
  event.type === 'job.end' || event.type === 'control' || event.type === 'agent.resume'

/** A job's progress after one event; only the fields of JobProgress are read, so a job without its settings will do. */
export function reduceJob<J extends JobProgress>(job: J, event: TraceEvent): J {
  switch (event.type) {
    case 'job.end':
      return {
        ...job,
        status: event.data.status,
        ...(event.data.reason ? { end_reason: event.data.reason } : {}),
        ended_at: event.ts,
        usage: usageOf(event.data.usage) ?? job.usage,
        cost_usd: costOf(event.data.cost_usd) ?? job.cost_usd,
      }
    case 'agent.resume': {
      // An agent of an ended job continues: the job runs again, and ends again with a new job.end.
      const { end_reason: _reason, ...rest } = job as J & { end_reason?: unknown }
      return { ...(rest as J), status: 'running', ended_at: null }
    }
    case 'control': {
      const { action, target, value } = event.data
      if (action === 'auto_approve') {
        const mode = approvalModeOfControl(value)
        return { ...job, auto_approve: mode === 'approve', subagent_approvals: mode }
      }
      if (action === 'pause' && target === job.id) return { ...job, spawn_paused: true }
      if (action === 'resume' && target === job.id) return { ...job, spawn_paused: false }
      if (action === 'resume_job' && target === job.id) {
        // An interrupted job resumed: it runs again, and ends again with a new job.end.
        const { end_reason: _reason, ...rest } = job as J & { end_reason?: unknown }
        return { ...(rest as J), status: 'running', ended_at: null }
      }
      return job
    }
    default:
      return job
  }
}

function blankNode(jobId: string, id: string, ts: string): AgentNode {
  return {
    id,
    job_id: jobId,
    parent_id: null,
    depth: 0,
    label: 'agent',
    profile: 'general',
    model: null,
    task: '',
    status: 'queued',
    terminal_reason: null,
    current_tool: null,
    steps: 0,
    max_steps: null,
    total_token_budget: null,
    usage: emptyUsage(),
    cost_usd: null,
    created_at: ts,
    started_at: null,
    ended_at: null,
    last_event_at: ts,
  }
}

/*
 * Event data is typed by the union in events.ts (checked when recorded, imported or received),
 * but usage and cost also feed SQLite columns and sums: a database written before the union
 * existed may hold anything there, so they are read defensively.
 */
/** A cost as stored: a finite number, else unknown. */
const costOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)
/**
 * Usage as counted: each known count that is a whole number of zero or more (older traces may
 * lack some; a trace file may hold anything); undefined when the value is not an object at all.
 */
const usageOf = (value: unknown): Usage | undefined => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  // Each key read by name: once per llm.call in the writer, where a loop over the keys cost more.
  const { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens } = value as Record<keyof Usage, unknown>
  return {
    input_tokens: countOf(input_tokens),
    output_tokens: countOf(output_tokens),
    cache_read_tokens: countOf(cache_read_tokens),
    cache_write_tokens: countOf(cache_write_tokens),
    reasoning_tokens: countOf(reasoning_tokens),
  }
}
const countOf = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0)
