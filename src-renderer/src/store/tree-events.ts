import type { HeldSpawn, PendingApproval } from '@core/api/contract'
import type { TraceEvent } from '@core/trace/events'
import type { AgentNode } from '@core/trace/model'
import { reduceAgents } from '@core/trace/projection'
import { foldWorktree } from '@core/trace/worktree-view'
import { buildChildren, buildSubtreeTotals, updateSubtreeTotals, type TreeState } from './tree-state'

/**
 * Applies a batch of live events to the selected job's tree with the store's own reducer
 * (reduceAgents), copying only what changed. Events of other jobs and events already in the
 * tree (seq ≤ lastSeq) are skipped; while the snapshot loads, the job's events wait in
 * `pending`.
 */
export function applyTreeEvents(state: TreeState, events: readonly TraceEvent[]): TreeState {
  const mine = events.filter((event) => event.job_id === state.jobId && event.seq > state.lastSeq)
  if (mine.length === 0) return state
  if (state.loading) return { ...state, pending: [...state.pending, ...mine] }

  const agents: Record<string, AgentNode> = { ...state.agents }
  let order = state.order
  let approvals = state.approvals
  let approvedCommands = state.approvedCommands
  let wrappingUp = state.wrappingUp
  let held = state.held
  let unresponsive = state.unresponsive
  let worktrees = state.worktrees
  let structureChanged = false
  let lastSeq = state.lastSeq
  const changed = new Set<string>()
  for (const event of mine) {
    if (event.seq <= lastSeq) continue
    lastSeq = event.seq
    for (const node of reduceAgents(event, (id) => agents[id])) {
      const before = agents[node.id]
      if (!before) {
        if (order === state.order) order = [...state.order]
        order.push(node.id)
        structureChanged = true
      } else if (before.parent_id !== node.parent_id) {
        structureChanged = true
      }
      agents[node.id] = node
      changed.add(node.id)
    }
    approvedCommands = applyApprovalRule(approvedCommands, approvals, event)
    approvals = applyApprovalEvent(approvals, event)
    wrappingUp = applyWrapUpEvent(wrappingUp, event)
    held = applyHeldEvent(held, event)
    unresponsive = applyHealthEvent(unresponsive, event)
    if (event.type === 'worktree' && event.agent_id) {
      worktrees = { ...worktrees, [event.agent_id]: foldWorktree(worktrees[event.agent_id], event.agent_id, event.data) }
    }
  }
  const children = structureChanged ? buildChildren(agents, order) : state.children
  return {
    ...state,
    agents,
    order,
    children,
    structure: structureChanged ? state.structure + 1 : state.structure,
    subtree: structureChanged ? buildSubtreeTotals(agents, children) : updateSubtreeTotals(state.subtree, agents, children, changed),
    approvals,
    approvedCommands,
    wrappingUp,
    held,
    unresponsive,
    worktrees,
    lastSeq,
  }
}

/** An agent is unresponsive from its `agent.health` saying so until one says it is responsive, or it ends. */
function applyHealthEvent(unresponsive: Record<string, string>, event: TraceEvent): Record<string, string> {
  const id = event.agent_id
  if (!id) return unresponsive
  if (event.type === 'agent.health' && event.data.state === 'unresponsive') return { ...unresponsive, [id]: event.data.last_heartbeat_at }
  if ((event.type === 'agent.health' || event.type === 'agent.end') && unresponsive[id]) {
    const { [id]: _back, ...rest } = unresponsive
    return rest
  }
  return unresponsive
}

/** A spawn held by a limit waits for the user until it is allowed, starts, queues or ends (a cancel). */
function applyHeldEvent(held: Record<string, HeldSpawn>, event: TraceEvent): Record<string, HeldSpawn> {
  if (event.type === 'subagent.held' && event.data.limit) {
    const { child_agent_id: id, limit, reason } = event.data
    return { ...held, [id]: { agent_id: id, limit, reason: reason ?? limit } }
  }
  const id =
    event.type === 'subagent.held' || event.type === 'subagent.queued' || event.type === 'subagent.start'
      ? event.data.child_agent_id
      : event.type === 'agent.start' || event.type === 'agent.end' || (event.type === 'control' && event.data.action === 'allow_spawn')
        ? event.agent_id
        : null
  if (!id || !held[id]) return held
  const { [id]: _released, ...rest } = held
  return rest
}

/** An agent told to wrap up is wrapping up until it ends. */
function applyWrapUpEvent(wrappingUp: Record<string, true>, event: TraceEvent): Record<string, true> {
  const id = event.agent_id
  if (!id) return wrappingUp
  if (event.type === 'agent.wrap_up' && !wrappingUp[id]) return { ...wrappingUp, [id]: true }
  if (event.type === 'agent.end' && wrappingUp[id]) {
    const { [id]: _ended, ...rest } = wrappingUp
    return rest
  }
  return wrappingUp
}

/** The user approved a waiting command for the whole job: it joins the job's rules. */
function applyApprovalRule(rules: string[], approvals: readonly PendingApproval[], event: TraceEvent): string[] {
  if (event.type !== 'approval.decision' || event.data.scope !== 'job' || event.data.by !== 'user') return rules
  const command = approvals.find((approval) => approval.approval_id === event.data.approval_id)?.command
  return command === undefined || rules.includes(command) ? rules : [...rules, command]
}

/** Once the snapshot is in: drop what it already holds (seq ≤ watermark), apply the rest. */
export function finishTreeLoad(loaded: TreeState, pending: readonly TraceEvent[]): TreeState {
  return applyTreeEvents(loaded, pending)
}

function applyApprovalEvent(approvals: PendingApproval[], event: TraceEvent): PendingApproval[] {
  const data = event.data
  if (event.type === 'approval.request' && typeof data.approval_id === 'string') {
    if (approvals.some((approval) => approval.approval_id === data.approval_id)) return approvals
    return [
      ...approvals,
      {
        approval_id: data.approval_id,
        job_id: event.job_id,
        agent_id: event.agent_id ?? '',
        tool: text(data.tool),
        command: text(data.command),
        reason: text(data.reason ?? data.risk_reason),
        ...(Array.isArray(data.path) ? { path: data.path.map(String) } : {}),
        ...(typeof data.sandboxed === 'boolean' ? { sandboxed: data.sandboxed } : {}),
      },
    ]
  }
  if (event.type === 'approval.decision' && typeof data.approval_id === 'string') {
    return approvals.filter((approval) => approval.approval_id !== data.approval_id)
  }
  return approvals
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value))
