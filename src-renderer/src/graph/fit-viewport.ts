import { getViewportForBounds, type Rect, type Viewport } from '@xyflow/react'

export const fit = { padding: 0.12, maxZoom: 1, duration: 200 }
/** Where a tree shorter than the pane begins: this far below the pane's top, in pixels. */
export const topGap = 28

/**
 * The viewport that fits `bounds` in a pane (xyflow's fit: its zoom, centred across), with the tree
 * drawn from the top rather than in the middle: a tree grows downwards, and a centred one leaves
 * an empty band above its root, half the pane on a small job. A tree taller than the pane at the
 * smallest zoom keeps xyflow's placement.
 */
export function fitViewport(bounds: Rect, width: number, height: number, minZoom: number): Viewport {
  const viewport = getViewportForBounds(bounds, width, height, minZoom, fit.maxZoom, fit.padding)
  if (bounds.height * viewport.zoom + topGap > height) return viewport
  return { ...viewport, y: topGap - bounds.y * viewport.zoom }
}

/** True when all of `bounds` (flow coordinates) is inside the pane at its viewport, a pixel of slack each side. */
export function allInView(bounds: Rect, transform: readonly [number, number, number], width: number, height: number): boolean {
  const [x, y, zoom] = transform
  const left = bounds.x * zoom + x
  const top = bounds.y * zoom + y
  return left >= -1 && top >= -1 && left + bounds.width * zoom <= width + 1 && top + bounds.height * zoom <= height + 1
}
