import { describe, expect, it } from 'vitest'
import { applyTreeEvents } from '../store/tree-events'
import { emptyTree, type TreeState } from '../store/tree-state'
import { eventFactory } from '../test-support/events'
import { fanOutColumns, fanOutId, fanOutThreshold, fanOutTotals } from './fan-out'
import { buildFlowNodes, layoutOptions } from './flow-elements'

const event = eventFactory()

/** A root with `count` running children, the first `withKids` of them each with one child of their own. */
function fanOut(count: number, withKids = 0): TreeState {
  return applyTreeEvents(emptyTree('job-1'), [
    event('agent.start', 'root', { profile: 'general' }),
    ...Array.from({ length: count }, (_, index) =>
      event('agent.start', `c${index}`, { profile: 'explore' }, { parent_id: 'root', depth: 1 }),
    ),
    ...Array.from({ length: withKids }, (_, index) =>
      event('agent.start', `g${index}`, { profile: 'explore' }, { parent_id: `c${index}`, depth: 2 }),
    ),
  ])
}

const visible = (tree: TreeState, expanded: Record<string, true> = {}) =>
  buildFlowNodes(tree, {}, new Map(), expanded).nodes.filter((node) => !node.hidden)

describe('a grouped fan-out', () => {
  it('draws a parent with many children as one group node below it, the children (and theirs) hidden', () => {
    const tree = fanOut(500, 3)
    const built = buildFlowNodes(tree, {}, new Map())
    expect(built.nodes.filter((node) => !node.hidden).map((node) => node.id)).toEqual(['root', fanOutId('root')])
    expect(built.nodes.filter((node) => node.hidden)).toHaveLength(503)
    const group = built.nodes.at(-1)!
    expect(group).toMatchObject({ type: 'fanOut', data: { parentId: 'root' } })
    expect(group.position.y).toBe(built.layout.bands[1]!.top)
    expect(built.parents.get(fanOutId('root'))).toBe('root')
    expect(built.bounds).toMatchObject({ width: layoutOptions.nodeWidth, height: layoutOptions.levelHeight + layoutOptions.nodeHeight })
  })

  it('groups only above the threshold', () => {
    expect(visible(fanOut(fanOutThreshold)).map((node) => node.type)).toEqual(Array(fanOutThreshold + 1).fill('agent'))
    expect(visible(fanOut(fanOutThreshold + 1)).map((node) => node.type)).toEqual(['agent', 'fanOut'])
  })

  it('expands to the same nodes, in order, wrapped in rows no wider than the limit, and groups again', () => {
    const tree = fanOut(500)
    const expanded = visible(tree, { root: true })
    const children = expanded.filter((node) => node.id !== 'root')
    expect(children.map((node) => node.id)).toEqual(tree.children.root)
    expect(children.every((node) => node.type === 'agent')).toBe(true)
    const rows = new Map<number, number>()
    for (const node of children) rows.set(node.position.y, (rows.get(node.position.y) ?? 0) + 1)
    expect(Math.max(...rows.values())).toBe(fanOutColumns)
    expect(rows.size).toBe(Math.ceil(500 / fanOutColumns))
    // Read row by row, left to right, the grid is the children's order.
    const reading = [...children].sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x)
    expect(reading.map((node) => node.id)).toEqual(tree.children.root)
    expect(visible(tree, {}).map((node) => node.id)).toEqual(['root', fanOutId('root')])
  })

  it('counts the children by status, and the totals follow their status', () => {
    const tree = fanOut(30)
    expect(fanOutTotals(tree, 'root')).toMatchObject({ count: 30, running: 30, failed: 0, completed: 0 })
    const later = applyTreeEvents(tree, [
      event('agent.end', 'c0', { status: 'failed' }, { parent_id: 'root', depth: 1 }),
      event('agent.end', 'c1', { status: 'completed' }, { parent_id: 'root', depth: 1 }),
      event('agent.end', 'c2', { status: 'completed' }, { parent_id: 'root', depth: 1 }),
    ])
    expect(fanOutTotals(later, 'root')).toMatchObject({ count: 30, running: 27, failed: 1, completed: 2 })
  })
})
