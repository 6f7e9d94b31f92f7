import { create } from 'zustand'
import { agentStatuses, type AgentStatus } from '@core/trace/statuses'
import type { TreeState } from '../store/tree-state'

/**
 * A grouped fan-out: a parent with more than `fanOutThreshold` children draws them as one group
 * node with their count and status totals, until the user expands it; expanded, they wrap into a
 * grid of at most `fanOutColumns` a row. One node rather than a few rows of cards, because 500
 * cards are unreadable at any zoom that fits them, while a count and coloured totals are read at
 * a glance and still say where a failure or a wait for approval is.
 */
export const fanOutThreshold = 24
export const fanOutColumns = 20

const prefix = 'fan-out:'
export const fanOutId = (parentId: string): string => `${prefix}${parentId}`
export const isFanOutId = (id: string): boolean => id.startsWith(prefix)
export const fanOutParent = (id: string): string => id.slice(prefix.length)

/** Whether a parent's children draw as a group node: many of them and not expanded by the user. */
export const isGrouped = (childCount: number, expanded: boolean): boolean => childCount > fanOutThreshold && !expanded

/**
 * Which fan-outs the user has expanded, by parent agent id. A view choice, like zoom, so it lives
 * with the graph rather than in the app store; agent ids are unique across jobs.
 */
interface FanOutState {
  expanded: Record<string, true>
  toggle(parentId: string): void
}

export const useFanOuts = create<FanOutState>()((set) => ({
  expanded: {},
  toggle: (parentId) =>
    set((state) => {
      const expanded = { ...state.expanded }
      if (expanded[parentId]) delete expanded[parentId]
      else expanded[parentId] = true
      return { expanded }
    }),
}))

export type FanOutTotals = { count: number } & Record<AgentStatus, number>

/** The number of a parent's children and how many are in each status; O(children), flat for shallow compare. */
export function fanOutTotals(tree: TreeState, parentId: string): FanOutTotals {
  const totals = { count: 0 } as FanOutTotals
  for (const status of agentStatuses) totals[status] = 0
  for (const id of tree.children[parentId] ?? []) {
    const agent = tree.agents[id]
    if (!agent) continue
    totals.count += 1
    totals[agent.status] += 1
  }
  return totals
}
