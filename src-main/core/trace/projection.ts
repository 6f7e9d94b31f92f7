import type { AgentStatus, TerminalReason, TraceEvent } from './events'
import type { AgentNode, JobProgress } from './model'
import { addCost, addUsage, emptyUsage, type Usage } from './usage'

/**
 * The tree is a projection of the trace: these pure reducers turn one event into the new state
 * of the nodes it touches. The store applies them inside its write transaction; the renderer
 * applies the same functions to live event batches, so both always agree.
 */
export function reduceAgents(event: TraceEvent, get: (id: string) => AgentNode | undefined): AgentNode[] {
  const data = event.data
  switch (event.type) {
    case 'subagent.held':
    case 'subagent.queued': {
      const childId = String(data.child_agent_id)
      const existing = get(childId)
      const status: AgentStatus = event.type === 'subagent.held' ? 'held' : 'queued'
      if (existing) return [{ ...existing, status, last_event_at: event.ts }]
      return [
        {
          ...blankNode(event.job_id, childId, event.ts),
          parent_id: event.agent_id,
          depth: (event.depth ?? 0) + 1,
          label: str(data.description) ?? str(data.profile) ?? 'subagent',
          profile: str(data.profile) ?? 'general',
          task: str(data.task) ?? '',
          status,
        },
      ]
    }
    case 'agent.start': {
      if (!event.agent_id) return []
      const existing = get(event.agent_id) ?? blankNode(event.job_id, event.agent_id, event.ts)
      return [
        {
          ...existing,
          parent_id: event.parent_id,
          depth: event.depth ?? 0,
          label: str(data.label) ?? existing.label,
          profile: str(data.profile) ?? existing.profile,
          model: str(data.model) ?? existing.model,
          task: str(data.task) ?? existing.task,
          max_steps: num(data.max_steps),
          total_token_budget: num(data.total_token_budget),
          status: 'running',
          started_at: event.ts,
          last_event_at: event.ts,
        },
      ]
    }
    default:
      break
  }
  const node = event.agent_id ? get(event.agent_id) : undefined
  if (!node) return []
  const touched: AgentNode = { ...node, last_event_at: event.ts }
  switch (event.type) {
    case 'agent.end':
      touched.status = (str(data.status) as AgentStatus | undefined) ?? 'failed'
      touched.terminal_reason = (str(data.terminal_reason) as TerminalReason | undefined) ?? null
      touched.current_tool = null
      touched.ended_at = event.ts
      if (usageOf(data.usage)) touched.usage = usageOf(data.usage)!
      if (data.cost_usd !== undefined) touched.cost_usd = costOf(data.cost_usd)
      if (typeof data.steps === 'number') touched.steps = data.steps
      break
    case 'llm.call':
      touched.steps = node.steps + 1
      touched.usage = addUsage(node.usage, usageOf(data.usage) ?? {})
      touched.cost_usd = addCost(node.cost_usd, costOf(data.cost_usd))
      break
    case 'tool.call':
      touched.current_tool = str(data.name) ?? null
      break
    case 'tool.result':
      touched.current_tool = null
      break
    case 'approval.request':
      touched.status = 'waiting_approval'
      break
    case 'approval.decision':
      if (node.status === 'waiting_approval') touched.status = 'running'
      break
    default:
      break
  }
  return [touched]
}

/** A job's progress after one event; only the fields of JobProgress are read, so a job without its settings will do. */
export function reduceJob<J extends JobProgress>(job: J, event: TraceEvent): J {
  const data = event.data
  switch (event.type) {
    case 'job.end':
      return {
        ...job,
        status: (str(data.status) as JobProgress['status'] | undefined) ?? 'failed',
        ended_at: event.ts,
        usage: usageOf(data.usage) ?? job.usage,
        cost_usd: costOf(data.cost_usd) ?? job.cost_usd,
      }
    case 'control':
      if (data.action === 'auto_approve') return { ...job, auto_approve: data.value === true }
      if (data.action === 'pause' && data.target === job.id) return { ...job, spawn_paused: true }
      if (data.action === 'resume' && data.target === job.id) return { ...job, spawn_paused: false }
      return job
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

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const num = (value: unknown): number | null => (typeof value === 'number' ? value : null)
/** A cost as stored: a finite number, else unknown (a trace file may hold anything here). */
const costOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)
/**
 * Usage as counted: each known count that is a whole number of zero or more (older traces may
 * lack some; a trace file may hold anything); undefined when the value is not an object at all.
 */
const usageOf = (value: unknown): Usage | undefined => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const usage = emptyUsage()
  for (const key of usageKeys) {
    const count = (value as Record<string, unknown>)[key]
    if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0) usage[key] = count
  }
  return usage
}
const usageKeys = Object.keys(emptyUsage()) as (keyof Usage)[]
