import type { Edge } from '@xyflow/react'
import { describe, expect, it } from 'vitest'
import { applyTreeEvents } from '../store/tree-events'
import { emptyTree, type TreeState } from '../store/tree-state'
import { eventFactory } from '../test-support/events'
import { buildEdges, buildFlowNodes, layoutOptions, maxAnimatedEdges, selectCalmEdges, type FlowNodeCache } from './flow-elements'

/** A root and its children, all started; then `more` further children in a second batch. */
function grow(children: number, more = 0): { first: TreeState; second: TreeState; event: ReturnType<typeof eventFactory> } {
  const event = eventFactory()
  const child = (index: number) => event('agent.start', `c${index}`, { profile: 'explore' }, { parent_id: 'root', depth: 1 })
  const first = applyTreeEvents(emptyTree('job-1'), [
    event('agent.start', 'root', { profile: 'general' }),
    ...Array.from({ length: children }, (_, index) => child(index)),
  ])
  const second = applyTreeEvents(
    first,
    Array.from({ length: more }, (_, index) => child(children + index)),
  )
  return { first, second, event }
}

const ids = (nodes: readonly { id: string }[]) => nodes.map((node) => node.id)

describe('buildFlowNodes', () => {
  it('hands back the same node object for an agent whose place did not change', () => {
    const { first, second } = grow(3, 1)
    const cache: FlowNodeCache = new Map()
    const before = buildFlowNodes(first, {}, cache)
    const after = buildFlowNodes(second, {}, cache)
    expect(ids(after.nodes)).toEqual(['root', 'c0', 'c1', 'c2', 'c3'])
    // The root stays centred over its children: with a fourth child the others shift left.
    const moved = after.nodes.filter((node, index) => node !== before.nodes[index])
    for (const node of moved) expect(node.position).not.toEqual(before.nodes.find((old) => old.id === node.id)?.position)
    expect(buildFlowNodes(second, {}, cache).nodes.every((node, index) => node === after.nodes[index])).toBe(true)
  })

  it('keeps the grid of many leaves in place when one more joins a row, and the data object of every node', () => {
    const { first, second } = grow(30, 1)
    const cache: FlowNodeCache = new Map()
    // 30 children are a grouped fan-out until expanded.
    const before = buildFlowNodes(first, {}, cache, { root: true })
    const after = buildFlowNodes(second, {}, cache, { root: true })
    expect(after.nodes.slice(0, 31).filter((node, index) => node === before.nodes[index]).length).toBe(31)
    expect(after.nodes[31]!.data).toEqual({ agentId: 'c30' })
  })

  it('hides a collapsed subtree at its ancestor and gives the box around what is visible', () => {
    const { second } = grow(2)
    const open = buildFlowNodes(second, {})
    expect(open.bounds).toEqual({
      x: open.layout.minX,
      y: 0,
      width: open.layout.maxX - open.layout.minX,
      height: layoutOptions.levelHeight + layoutOptions.nodeHeight,
    })
    const collapsed = buildFlowNodes(second, { root: true })
    expect(collapsed.nodes.filter((node) => node.hidden).map((node) => node.id)).toEqual(['c0', 'c1'])
    expect(collapsed.nodes[1]!.position).toEqual(collapsed.nodes[0]!.position)
    expect(collapsed.bounds).toMatchObject({ width: layoutOptions.nodeWidth, height: layoutOptions.nodeHeight })
    expect(collapsed.parents).toEqual(
      new Map([
        ['c0', 'root'],
        ['c1', 'root'],
      ]),
    )
  })
})

describe('buildEdges', () => {
  it('joins drawn parents and children only, and keeps each edge object while its ends stay', () => {
    const parents = new Map([
      ['a', 'root'],
      ['b', 'root'],
      ['a1', 'a'],
    ])
    const cache = new Map<string, Edge>()
    const edges = buildEdges(parents, new Set(['root', 'a', 'b']), cache)
    expect(edges.map((edge) => [edge.source, edge.target])).toEqual([
      ['root', 'a'],
      ['root', 'b'],
    ])
    const again = buildEdges(parents, new Set(['root', 'a', 'b', 'a1']), cache)
    expect(again.slice(0, 2)).toEqual(edges)
    expect(again[0]).toBe(edges[0])
    expect(again[2]).toMatchObject({ id: 'edge-a1', source: 'a', target: 'a1', type: 'tree' })
  })
})

describe('selectCalmEdges', () => {
  it('calms the edges once more children run than may animate', () => {
    const { first, second, event } = grow(maxAnimatedEdges, 1)
    expect(selectCalmEdges({ tree: first })).toBe(false)
    expect(selectCalmEdges({ tree: second })).toBe(true)
    const ended = applyTreeEvents(second, [event('agent.end', 'c0', { status: 'completed' }, { parent_id: 'root', depth: 1 })])
    expect(selectCalmEdges({ tree: ended })).toBe(false)
  })
})
