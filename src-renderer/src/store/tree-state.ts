import type { WorktreeView } from '@core/trace/worktree-view'
import type { HeldSpawn, PendingApproval } from '@core/api/contract'
import type { TraceEvent } from '@core/trace/events'
import type { AgentNode } from '@core/trace/model'
import { isLiveStatus } from '@core/trace/statuses'

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
  /** Commands the user approved for the whole job (they run again unasked), in the order approved. */
  approvedCommands: string[]
  /** Agents told to wrap up that have not ended yet (the node says "wrapping up…"). */
  wrappingUp: Record<string, true>
  /** Spawns held by a job limit, by agent id: the ghost says why and offers Allow and Cancel. */
  held: Record<string, HeldSpawn>
  /** Agents whose process went silent past the threshold (`agent.health`), with when it last spoke: the node turns red with Kill and Restart. */
  unresponsive: Record<string, string>
  /** Worktree children by agent id: their branch and what became of the worktree (Merge and Discard on the node). */
  worktrees: Record<string, WorktreeView>
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
  approvedCommands: [],
  wrappingUp: {},
  held: {},
  unresponsive: {},
  worktrees: {},
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

const isActive = (agent: AgentNode): boolean => isLiveStatus(agent.status)

/** One agent's totals from its own usage and its children's totals (which must be up to date). */
function totalsOf(
  id: string,
  agents: Record<string, AgentNode>,
  children: Record<string, string[]>,
  totals: Record<string, SubtreeTotals>,
): SubtreeTotals {
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
export function buildSubtreeTotals(agents: Record<string, AgentNode>, children: Record<string, string[]>): Record<string, SubtreeTotals> {
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

/**
 * Agents a getTree reply carries at most. A reply's copy (IPC, or a WebSocket's parse) is one
 * task on the renderer's main thread, about 8 ms per 1,000 agents: a 10,000-agent tree in one
 * reply held a frame for over 80 ms before anything else ran.
 */
export const treePageSize = 1000

/**
 * A getTree snapshot read a page at a time (tree-slice.ts): each page is put in creation order as
 * it comes, merged into the agents before it, so that what is left once the last page is in (the
 * children and the totals) is linear and quick; sorting 10,000 agents at the end was a long task
 * of its own. The order is that of one sort of the whole snapshot: by created_at, ties in the
 * order the snapshot lists them.
 */
export class SnapshotTree {
  private readonly agents: Record<string, AgentNode> = {}
  /** Every agent so far, in creation order. */
  private ordered: AgentNode[] = []

  add(page: readonly AgentNode[]): this {
    // ISO timestamps order as plain strings; localeCompare costs tens of milliseconds over 10,000 agents.
    const sorted = page
      .map((agent, index) => ({ agent, index }))
      .sort((a, b) => (a.agent.created_at < b.agent.created_at ? -1 : a.agent.created_at > b.agent.created_at ? 1 : a.index - b.index))
      .map(({ agent }) => agent)
    for (const agent of sorted) this.agents[agent.id] = agent
    const before = this.ordered
    if (before.length === 0 || sorted.length === 0 || before.at(-1)!.created_at <= sorted[0]!.created_at) {
      for (const agent of sorted) before.push(agent)
      return this
    }
    // An agent of an earlier page goes first on a tie: the snapshot listed it first.
    const merged: AgentNode[] = []
    let old = 0
    for (const agent of sorted) {
      while (old < before.length && before[old]!.created_at <= agent.created_at) merged.push(before[old++]!)
      merged.push(agent)
    }
    while (old < before.length) merged.push(before[old++]!)
    this.ordered = merged
    return this
  }

  /** The tree of every page added. */
  finish(
    jobId: string,
    approvals: PendingApproval[],
    lastSeq: number,
    approvedCommands: string[] = [],
    wrappingUp: readonly string[] = [],
    held: readonly HeldSpawn[] = [],
    unresponsive: readonly { agent_id: string; last_heartbeat_at: string }[] = [],
    worktrees: readonly WorktreeView[] = [],
  ): TreeState {
    const order = this.ordered.map((agent) => agent.id)
    const children = buildChildren(this.agents, order)
    return {
      ...emptyTree(jobId),
      agents: this.agents,
      order,
      children,
      structure: 1,
      subtree: buildSubtreeTotals(this.agents, children),
      approvals,
      approvedCommands,
      wrappingUp: Object.fromEntries(wrappingUp.map((id) => [id, true as const])),
      held: Object.fromEntries(held.map((spawn) => [spawn.agent_id, spawn])),
      unresponsive: Object.fromEntries(unresponsive.map((agent) => [agent.agent_id, agent.last_heartbeat_at])),
      worktrees: Object.fromEntries(worktrees.map((view) => [view.agent_id, view])),
      lastSeq,
    }
  }
}

/** The tree from a whole getTree snapshot, ordered by creation time. */
export function treeFromSnapshot(jobId: string, agents: AgentNode[], approvals: PendingApproval[], lastSeq: number): TreeState {
  return new SnapshotTree().add(agents).finish(jobId, approvals, lastSeq)
}
