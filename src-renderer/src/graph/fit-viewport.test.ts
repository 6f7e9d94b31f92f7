import { describe, expect, it } from 'vitest'
import { boundsOf, layoutOptions, layoutOptionsFor, paneColumns, paneWrapUpTo, readableZoom } from './flow-elements'
import { allInView, fit, fitViewport, topGap } from './fit-viewport'
import { layoutTree } from './layout'

describe('fitViewport', () => {
  it('draws a tree shorter than the pane from its top, centred across', () => {
    const bounds = { x: 0, y: 100, width: 400, height: 150 }
    const viewport = fitViewport(bounds, 1000, 800, 0.1)
    expect(viewport.zoom).toBe(1)
    // The tree's top edge is topGap below the pane's top, not (800 - 150) / 2.
    expect(bounds.y * viewport.zoom + viewport.y).toBeCloseTo(topGap)
    expect(bounds.x * viewport.zoom + viewport.x + (bounds.width * viewport.zoom) / 2).toBeCloseTo(500)
  })

  it('zooms a tall tree out to fit, from the top, all of it in view', () => {
    const bounds = { x: 0, y: -50, width: 400, height: 2000 }
    const viewport = fitViewport(bounds, 1000, 800, 0.1)
    expect(viewport.zoom).toBeLessThan(1)
    expect(bounds.y * viewport.zoom + viewport.y).toBeCloseTo(topGap)
    expect((bounds.y + bounds.height) * viewport.zoom + viewport.y).toBeLessThanOrEqual(800)
  })

  it("keeps xyflow's placement for a tree taller than the pane at the smallest zoom", () => {
    const bounds = { x: 0, y: 0, width: 400, height: 100_000 }
    const viewport = fitViewport(bounds, 1000, 800, 0.1)
    expect(viewport.zoom).toBe(0.1)
    // Centred on the tree, as xyflow puts it.
    expect(viewport.y + (bounds.height * viewport.zoom) / 2).toBeCloseTo(400)
  })
})

describe('a small tree in a narrow pane', () => {
  /** A root with `children` leaf children, laid out for a pane `paneWidth` wide, and the zoom its fit takes. */
  function fitted(children: number, paneWidth: number, paneHeight = 700) {
    const input = {
      roots: ['root'],
      childrenOf: (id: string) => (id === 'root' ? Array.from({ length: children }, (_, index) => `c${index}`) : []),
    }
    const layout = layoutTree(input, layoutOptionsFor(children + 1, paneColumns(paneWidth, fit.padding)))
    const rows = new Set([...layout.positions.values()].filter((position) => position.depth === 1).map((position) => position.y))
    return { rows: rows.size, zoom: fitViewport(boundsOf(layout), paneWidth, paneHeight, 0.005).zoom }
  }

  it('wraps four children into rows beside an open inspector, so the fit stays readable; one row where they fit', () => {
    // The graph pane of a 1440 px window with the inspector open: one row would fit at ~0.6.
    const oneRow = layoutTree({ roots: ['r'], childrenOf: (id) => (id === 'r' ? ['a', 'b', 'c', 'd'] : []) }, layoutOptions)
    expect(oneRow.maxX - oneRow.minX).toBeGreaterThan(1000)
    const narrow = fitted(4, 735)
    expect(narrow.rows).toBe(2)
    expect(narrow.zoom).toBeGreaterThanOrEqual(readableZoom)
    // The inspector closed: one row, at a readable zoom still.
    const wide = fitted(4, 1140)
    expect(wide.rows).toBe(1)
    expect(wide.zoom).toBeGreaterThanOrEqual(readableZoom)
  })

  it('leaves a big tree as it is, whatever the pane', () => {
    expect(layoutOptionsFor(paneWrapUpTo + 1, 2)).toBe(layoutOptions)
    expect(layoutOptionsFor(5, null)).toBe(layoutOptions)
    expect(paneColumns(0, fit.padding)).toBeNull()
    expect(paneColumns(100, fit.padding)).toBe(2)
  })
})

describe('allInView', () => {
  const bounds = { x: 0, y: 0, width: 500, height: 300 }
  it('tells a tree all in the pane from one partly out of it (the minimap shows only then)', () => {
    expect(allInView(bounds, [10, 10, 1], 600, 400)).toBe(true)
    expect(allInView(bounds, [150, 10, 1], 600, 400)).toBe(false)
    expect(allInView(bounds, [10, 10, 2], 600, 400)).toBe(false)
    expect(allInView(bounds, [0, 0, 0.5], 200, 400)).toBe(false)
    expect(allInView(bounds, [-20, 0, 1], 600, 400)).toBe(false)
  })
})
