import { describe, expect, it } from 'vitest'
import type { AgentNode } from '@core/trace/model'
import { agentsEndedByKill, killNeedsConfirm } from './kill-rule'
import { buildChildren } from './tree-state'

/** A root with `children` running children; the first has `grandchildren` of its own, one already completed. */
function tree(children: number, grandchildren = 0) {
  const agents: Record<string, AgentNode> = {}
  const add = (id: string, parent: string | null, status: AgentNode['status'] = 'running') =>
    (agents[id] = { id, parent_id: parent, status } as AgentNode)
  add('root', null)
  for (let index = 0; index < children; index++) add(`c${index}`, 'root')
  for (let index = 0; index < grandchildren; index++) add(`g${index}`, 'c0', index === 0 ? 'completed' : 'queued')
  return { agents, children: buildChildren(agents, Object.keys(agents)) }
}

describe('the kill rule', () => {
  it('counts the agents a kill ends: the branch and what still runs or waits under it', () => {
    expect(agentsEndedByKill(tree(3, 4), 'c0')).toBe(4)
    expect(agentsEndedByKill(tree(3, 4), 'c1')).toBe(1)
    expect(agentsEndedByKill(tree(3, 4), 'root')).toBe(7)
  })

  it('asks for the root, and for more than five agents; a small branch goes at once', () => {
    expect(killNeedsConfirm(tree(1), 'root')).toBe(true)
    expect(killNeedsConfirm(tree(3, 5), 'c0')).toBe(false)
    expect(killNeedsConfirm(tree(3, 6), 'c0')).toBe(true)
    expect(killNeedsConfirm(tree(3), 'c2')).toBe(false)
  })
})
