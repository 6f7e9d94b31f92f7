import { describe, expect, it } from 'vitest'
import { fitViewport, topGap } from './fit-viewport'

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
