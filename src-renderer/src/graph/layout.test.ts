import { describe, expect, it } from 'vitest'
import { layoutTree, type LayoutOptions, type TreeLayout } from './layout'

const options: LayoutOptions = { nodeWidth: 200, nodeHeight: 100, gap: 20, levelHeight: 160 }

function forest(edges: Record<string, string[]>, roots = ['root']): TreeLayout {
  return layoutTree({ roots, childrenOf: (id) => edges[id] ?? [] }, options)
}

const centre = (layout: TreeLayout, id: string): number => layout.positions.get(id)!.x + options.nodeWidth / 2

function expectNoOverlaps(layout: TreeLayout): void {
  const byLevel = new Map<number, number[]>()
  for (const position of layout.positions.values()) {
    const xs = byLevel.get(position.y) ?? []
    xs.push(position.x)
    byLevel.set(position.y, xs)
  }
  for (const xs of byLevel.values()) {
    xs.sort((a, b) => a - b)
    for (let index = 1; index < xs.length; index++) {
      expect(xs[index]! - xs[index - 1]!).toBeGreaterThanOrEqual(options.nodeWidth + options.gap - 1e-9)
    }
  }
}

describe('layoutTree', () => {
  it('puts each level one level-height lower, by depth', () => {
    const layout = forest({ root: ['a', 'b'], a: ['a1'] })
    expect(layout.positions.get('root')).toMatchObject({ y: 0, depth: 0 })
    expect(layout.positions.get('a')).toMatchObject({ y: 160, depth: 1 })
    expect(layout.positions.get('a1')).toMatchObject({ y: 320, depth: 2 })
    expect(layout.maxDepth).toBe(2)
  })

  it('centres a parent over its children and keeps siblings in order', () => {
    const layout = forest({ root: ['a', 'b', 'c'] })
    expect(centre(layout, 'a')).toBeLessThan(centre(layout, 'b'))
    expect(centre(layout, 'b')).toBeLessThan(centre(layout, 'c'))
    expect(centre(layout, 'root')).toBeCloseTo((centre(layout, 'a') + centre(layout, 'c')) / 2)
    expect(centre(layout, 'root')).toBeCloseTo(centre(layout, 'b'))
  })

  it('puts a single child straight under its parent', () => {
    const layout = forest({ root: ['only'] })
    expect(centre(layout, 'only')).toBeCloseTo(centre(layout, 'root'))
  })

  it('never overlaps nodes of a level, even for uneven subtrees', () => {
    const layout = forest({
      root: ['a', 'b', 'c', 'd'],
      a: ['a1', 'a2', 'a3', 'a4'],
      c: ['c1'],
      c1: ['c11', 'c12', 'c13'],
      d: ['d1', 'd2'],
    })
    expectNoOverlaps(layout)
    for (const [parent, kids] of Object.entries({ a: ['a1', 'a4'], c1: ['c11', 'c13'], d: ['d1', 'd2'] })) {
      expect(centre(layout, parent)).toBeCloseTo((centre(layout, kids[0]!) + centre(layout, kids[1]!)) / 2)
    }
  })

  it('packs a shallow sibling beside a deep one (tidy, not one column per leaf)', () => {
    const layout = forest({ root: ['a', 'b'], a: ['a1', 'a2', 'a3'] })
    // b sits right next to a on level 1; only level 2 is wide.
    expect(centre(layout, 'b') - centre(layout, 'a')).toBeCloseTo(options.nodeWidth + options.gap)
    expectNoOverlaps(layout)
  })

  it('lays out several roots side by side and re-runs with new agents', () => {
    const edges: Record<string, string[]> = { r1: ['x'], r2: [] }
    const before = forest(edges, ['r1', 'r2'])
    expectNoOverlaps(before)
    edges.r1 = ['x', 'y', 'z']
    const after = forest(edges, ['r1', 'r2'])
    expect(after.positions.size).toBe(5)
    expectNoOverlaps(after)
    expect(centre(after, 'r1')).toBeCloseTo(centre(after, 'y'))
  })

  it('handles 2,000 agents quickly, without overlaps, in a readable shape', () => {
    const edges: Record<string, string[]> = { root: [] }
    for (let parent = 0; parent < 40; parent++) {
      edges.root!.push(`p${parent}`)
      edges[`p${parent}`] = Array.from({ length: 49 }, (_, child) => `p${parent}c${child}`)
    }
    const started = performance.now()
    const layout = forest(edges)
    expect(performance.now() - started).toBeLessThan(200)
    expect(layout.positions.size).toBe(1 + 40 + 40 * 49)
    expectNoOverlaps(layout)
    // 49 leaves per branch wrap into rows: far narrower than one row of 1,960 nodes.
    expect(layout.maxX - layout.minX).toBeLessThan(1960 * options.nodeWidth * 0.5)
  })

  it('wraps many leaf siblings into rows inside a taller depth band', () => {
    const leaves = Array.from({ length: 30 }, (_, index) => `leaf${index}`)
    const layout = forest({ root: ['hub', 'side'], hub: leaves, side: ['s1'] })
    expectNoOverlaps(layout)
    const ys = new Set(leaves.map((leaf) => layout.positions.get(leaf)!.y))
    expect(ys.size).toBeGreaterThan(1)
    const [, depth1, depth2] = layout.bands
    expect(Math.min(...ys)).toBe(depth2!.top)
    expect(Math.max(...ys) + options.nodeHeight).toBeLessThanOrEqual(depth2!.top + depth2!.height)
    expect(depth2!.height).toBeGreaterThan(options.levelHeight)
    expect(depth1!.top).toBe(options.levelHeight)
    // The grid's first row is centred under its parent, and the neighbour's child does not overlap it.
    const firstRow = leaves.filter((leaf) => layout.positions.get(leaf)!.y === depth2!.top)
    expect(centre(layout, 'hub')).toBeCloseTo((centre(layout, firstRow[0]!) + centre(layout, firstRow.at(-1)!)) / 2)
    expect(layout.positions.get('s1')!.y).toBe(depth2!.top)
  })

  it('wraps the generations of a 10,000-agent tree into rows near the aspect, each node in a band of its depth', () => {
    // Breadth first, 24 children a parent: 1 + 24 + 576 + 9,399 agents, the widest generation 9,399 leaves.
    const edges: Record<string, string[]> = {}
    for (let index = 1; index < 10_000; index++) (edges[`n${Math.floor((index - 1) / 24)}`] ??= []).push(`n${index}`)
    const started = performance.now()
    const layout = layoutTree({ roots: ['n0'], childrenOf: (id) => edges[id] ?? [] }, { ...options, maxColumns: 20 })
    expect(performance.now() - started).toBeLessThan(2000)
    expect(layout.positions.size).toBe(10_000)
    expectNoOverlaps(layout)
    const width = layout.maxX - layout.minX
    const bottom = layout.bands.at(-1)!.top + layout.bands.at(-1)!.height
    // One tidy row of its generations would be over 1,000 times as wide as it is tall.
    expect(width / bottom).toBeGreaterThan(0.8)
    expect(width / bottom).toBeLessThan(3.2)
    for (const [id, position] of layout.positions) {
      const band = layout.bands.find((item) => position.y >= item.top && position.y + options.nodeHeight <= item.top + item.height)
      expect(band?.depth, id).toBe(position.depth)
      for (const kid of edges[id] ?? []) expect(layout.positions.get(kid)!.y).toBeGreaterThan(position.y)
    }
  })

  it('leaves a tree that fits the wrap width as one tidy tree', () => {
    const edges: Record<string, string[]> = { root: Array.from({ length: 30 }, (_, index) => `k${index}`) }
    for (const kid of edges.root!) edges[kid] = [`${kid}a`]
    const layout = forest(edges)
    expect(layout.bands.map((band) => band.depth)).toEqual([0, 1, 2])
    expect(new Set(edges.root!.map((kid) => layout.positions.get(kid)!.y)).size).toBe(1)
    expect(centre(layout, 'root')).toBeCloseTo((centre(layout, 'k0') + centre(layout, 'k29')) / 2)
  })

  it('returns an empty layout for no agents', () => {
    expect(forest({}, []).positions.size).toBe(0)
  })
})
