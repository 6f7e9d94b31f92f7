import { isLiveStatus, type AgentStatus } from '@core/trace/statuses'
import type { TreeState } from './tree-state'

/** A kill ending more agents than this asks first; so does one ending the root (the whole job). */
export const killAsksAbove = 5

const isLive = (status: string | undefined): boolean =>
  status !== undefined && (isLiveStatus(status as AgentStatus) || status === 'held' || status === 'queued')

/** How many agents a kill of `agentId` would end: it and its descendants not ended yet. */
export function agentsEndedByKill(tree: Pick<TreeState, 'agents' | 'children'>, agentId: string): number {
  let count = 0
  const stack = [agentId]
  while (stack.length > 0) {
    const id = stack.pop()!
    if (isLive(tree.agents[id]?.status)) count += 1
    stack.push(...(tree.children[id] ?? []))
  }
  return count
}

/** The steering rule: a kill asks first when it would end the root or more than five agents. */
export function killNeedsConfirm(tree: Pick<TreeState, 'agents' | 'children'>, agentId: string): boolean {
  return tree.agents[agentId]?.parent_id === null || agentsEndedByKill(tree, agentId) > killAsksAbove
}
