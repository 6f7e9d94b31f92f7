import type { PendingApproval } from '../../../src-main/core/api/contract'
import type { TraceEvent } from '../../../src-main/core/trace/events'
import type { AgentNode } from '../../../src-main/core/trace/model'

/** Totals over an agent and all its descendants, plus what the stall flag needs. */
export interface SubtreeTotals {
  tokens: number
  cost: number | null
  agents: number
  activeChildren: number
}

/** The delegation tree of the selected job, as the graph and toolbar read it. */
export interface TreeState {
  jobId: string | null
  loading: boolean
  error: string | null
  agents: Record<string, AgentNode>
  /** Agent ids in the order they first appeared (spawn order); siblings are laid out in it. */
  order: string[]
  /** Child ids per parent id, in spawn order; roots under the key ''. */
  children: Record<string, string[]>
  /** Bumped whenever an agent is added or re-parented: the layout depends only on this. */
  structure: number
  subtree: Record<string, SubtreeTotals>
  approvals: PendingApproval[]
  /** Events with a seq at or below this are already in the tree (snapshot or applied). */
  lastSeq: number
  /** Events received while the snapshot loads, applied (above the watermark) once it arrives. */
  pending: TraceEvent[]
}

export const emptyTree = (jobId: string | null = null, loading = false): TreeState => ({
  jobId,
  loading,
  error: null,
  agents: {},
  order: [],
  children: {},
  structure: 0,
  subtree: {},
  approvals: [],
  lastSeq: 0,
  pending: [],
})

export const rootKey = ''

export function buildChildren(agents: Record<string, AgentNode>, order: string[]): Record<string, string[]> {
  const children: Record<string, string[]> = { [rootKey]: [] }
  for (const id of order) {
    const agent = agents[id]
    if (!agent) continue
    const parent = agent.parent_id && agents[agent.parent_id] ? agent.parent_id : rootKey
    ;(children[parent] ??= []).push(id)
  }
  return children
}

const isActive = (agent: AgentNode): boolean => agent.status === 'running' || agent.status === 'waiting_approval'

/** One agent's totals from its own usage and its children's totals (which must be up to date). */
function totalsOf(id: string, agents: Record<string, AgentNode>, children: Record<string, string[]>, totals: Record<string, SubtreeTotals>): SubtreeTotals {
  const agent = agents[id]!
  const own: SubtreeTotals = {
    tokens: agent.usage.input_tokens + agent.usage.output_tokens,
    cost: agent.cost_usd,
    agents: 1,
    activeChildren: 0,
  }
  for (const childId of children[id] ?? []) {
    const child = totals[childId]!
    own.tokens += child.tokens
    own.agents += child.agents
    if (child.cost !== null) own.cost = (own.cost ?? 0) + child.cost
    if (isActive(agents[childId]!)) own.activeChildren += 1
  }
  return own
}

/** Post-order sums of tokens and cost over every subtree; O(agents). */
export function buildSubtreeTotals(
  agents: Record<string, AgentNode>,
  children: Record<string, string[]>,
): Record<string, SubtreeTotals> {
  const totals: Record<string, SubtreeTotals> = {}
  // Recursive in depth only, and max_depth is at most 8.
  const visit = (id: string): void => {
    for (const childId of children[id] ?? []) visit(childId)
    totals[id] = totalsOf(id, agents, children, totals)
  }
  for (const rootId of children[rootKey] ?? []) visit(rootId)
  return totals
}

/**
 * The totals after some agents changed and the tree's shape did not: only those agents and their
 * ancestors are summed again, deepest first, the same sums in the same order as
 * buildSubtreeTotals, so the figures are identical. A live batch touches a few hundred agents of
 * thousands.
 */
export function updateSubtreeTotals(
  previous: Record<string, SubtreeTotals>,
  agents: Record<string, AgentNode>,
  children: Record<string, string[]>,
  changed: Iterable<string>,
): Record<string, SubtreeTotals> {
  const dirty = new Map<string, number>()
  for (const id of changed) {
    let current: string | null = id
    while (current && agents[current] && !dirty.has(current)) {
      dirty.set(current, agents[current]!.depth)
      const parent: string | null = agents[current]!.parent_id
      current = parent && agents[parent] ? parent : null
    }
  }
  const totals = { ...previous }
  for (const [id] of [...dirty].sort((a, b) => b[1] - a[1])) totals[id] = totalsOf(id, agents, children, totals)
  return totals
}

/** The tree from a getTree snapshot, ordered by creation time. */
export function treeFromSnapshot(
  jobId: string,
  agents: AgentNode[],
  approvals: PendingApproval[],
  lastSeq: number,
): TreeState {
  const byId: Record<string, AgentNode> = {}
  for (const agent of agents) byId[agent.id] = agent
  const order = agents
    .map((agent, index) => ({ agent, index }))
    // ISO timestamps order as plain strings; localeCompare costs tens of milliseconds over 10,000 agents.
    .sort((a, b) => (a.agent.created_at < b.agent.created_at ? -1 : a.agent.created_at > b.agent.created_at ? 1 : a.index - b.index))
    .map(({ agent }) => agent.id)
  const children = buildChildren(byId, order)
  return {
    ...emptyTree(jobId),
    agents: byId,
    order,
    children,
    structure: 1,
    subtree: buildSubtreeTotals(byId, children),
    approvals,
    lastSeq,
  }
}
