import { getViewportForBounds, useStore, type ReactFlowState, type Rect } from '@xyflow/react'
import { useEffect, useRef } from 'react'
import type { AgentStatus } from '@core/trace/events'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import type { TreeState } from '../store/tree-state'
import { fanOutParent, isFanOutId } from './fan-out'
import { fit } from './fit-viewport'
import { layoutOptions, selectZoomedOut, zoomedOutBelow } from './flow-elements'
import type { TreeLayout } from './layout'
import { agentStatusColor } from './status'

/** A tree with more drawn nodes than this is drawn on the overview canvas while zoomed out. */
const overviewAbove = 1000

/**
 * Whether the graph is drawn as the overview: a big tree, zoomed out too far for a node's text.
 * While a fit is due (a tree just laid out), by the zoom that fit will set, so that a big tree
 * never goes to xyflow first only to leave it one frame later.
 */
export function useOverview(count: number, bounds: Rect, fitDue: boolean): boolean {
  const zoomedOut = useStore(selectZoomedOut)
  const fitZoom = useStore((state) =>
    state.width > 0 && state.height > 0
      ? getViewportForBounds(bounds, state.width, state.height, state.minZoom, fit.maxZoom, fit.padding).zoom
      : 1,
  )
  if (count <= overviewAbove) return false
  return fitDue ? fitZoom < zoomedOutBelow : zoomedOut
}

const selectTransform = (state: ReactFlowState) => state.transform
const selectAgents = (state: ArborState) => graphTree(state).agents
const fanOutColour = '#94a3b8'
const edgeColour = '#4b5563'

/**
 * The whole tree zoomed out, on one canvas: a box per node in its status colour and a line per
 * edge, what a zoomed-out node shows anyway (AgentBox). Thousands of xyflow nodes cost seconds to
 * mount and tens of milliseconds per update even as boxes; the canvas redraws them all in a few
 * milliseconds, once per frame at most, when the view moves or a status changes. It does not
 * take pointer events: a click on the pane is hit-tested against the layout (GraphView).
 *
 * The boxes and lines are written straight into the pixels (one ImageData, put in one call):
 * they are all axis-aligned rectangles, most a few pixels big. Drawn as canvas paths (an elbow
 * per edge, a rectangle per box), the first frame of a 10,000-agent overview spent some 65 ms in
 * the calls and 45 ms more rastering them; as pixels, the raster is gone and the calls are plain
 * loops.
 */
export function OverviewCanvas({ tree, layout }: { tree: TreeState; layout: TreeLayout }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const transform = useStore(selectTransform)
  const width = useStore((state) => state.width)
  const height = useStore((state) => state.height)
  const agents = useArbor(selectAgents)
  const last = useRef<Drawn | null>(null)
  const image = useRef<ImageData | null>(null)

  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const element = canvas.current
      const context = element?.getContext('2d')
      if (!element || !context) return
      const next: Drawn = { layout, tree, agents, transform, width, height }
      // Most live batches change steps and tokens, which the overview does not show.
      if (last.current && sameView(last.current, next) && sameStatuses(layout, last.current.agents, agents)) return
      last.current = next
      const ratio = window.devicePixelRatio || 1
      if (element.width !== Math.round(width * ratio)) element.width = Math.round(width * ratio)
      if (element.height !== Math.round(height * ratio)) element.height = Math.round(height * ratio)
      if (image.current?.width !== element.width || image.current.height !== element.height)
        image.current = context.createImageData(element.width, element.height)
      const drawn = drawOverview(image.current, layout, tree, agents, transform, ratio)
      context.putImageData(image.current, 0, 0)
      element.dataset.jobId = tree.jobId ?? ''
      element.dataset.drawn = String(drawn)
    })
    return () => cancelAnimationFrame(frame)
  }, [layout, tree, agents, transform, width, height])

  return (
    <canvas
      ref={canvas}
      className="graph-overview"
      data-testid="graph-overview"
      style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', pointerEvents: 'none', zIndex: 1 }}
    />
  )
}

interface Drawn {
  layout: TreeLayout
  tree: TreeState
  agents: TreeState['agents']
  transform: ReactFlowState['transform']
  width: number
  height: number
}

const sameView = (a: Drawn, b: Drawn): boolean =>
  a.layout === b.layout &&
  a.tree === b.tree &&
  a.width === b.width &&
  a.height === b.height &&
  a.transform.every((value, index) => value === b.transform[index])

function sameStatuses(layout: TreeLayout, before: TreeState['agents'], after: TreeState['agents']): boolean {
  if (before === after) return true
  for (const id of layout.positions.keys()) if (before[id]?.status !== after[id]?.status) return false
  return true
}

/** A colour as one pixel of an ImageData read as a 32-bit word: RGBA bytes, little-endian. */
function pixelOf(hex: string): number {
  const rgb = Number.parseInt(hex.slice(1), 16)
  return ((0xff << 24) | ((rgb & 0xff) << 16) | (rgb & 0xff00) | (rgb >> 16)) >>> 0
}
const statusPixels = Object.fromEntries(Object.entries(agentStatusColor).map(([status, colour]) => [status, pixelOf(colour)])) as Record<
  AgentStatus,
  number
>
const fanOutPixel = pixelOf(fanOutColour)
const edgePixel = pixelOf(edgeColour)

type FillRect = (x: number, y: number, width: number, height: number, pixel: number) => void

/** Draws every node and edge of the layout into `image`, at least a pixel each; returns the nodes drawn. */
function drawOverview(
  image: ImageData,
  layout: TreeLayout,
  tree: TreeState,
  agents: TreeState['agents'],
  [x, y, zoom]: ReactFlowState['transform'],
  ratio: number,
): number {
  const pixels = new Uint32Array(image.data.buffer)
  pixels.fill(0)
  const { width, height } = image
  const scale = zoom * ratio
  const fill: FillRect = (left, top, across, down, pixel) => {
    const x0 = Math.round(left * scale + x * ratio)
    const y0 = Math.round(top * scale + y * ratio)
    const x1 = Math.min(width, Math.max(x0 + 1, Math.round((left + across) * scale + x * ratio)))
    const y1 = Math.min(height, Math.max(y0 + 1, Math.round((top + down) * scale + y * ratio)))
    const from = Math.max(0, x0)
    // A plain loop: most spans are a few pixels, shorter than a call of TypedArray#fill costs.
    for (let row = Math.max(0, y0); row < y1; row++) {
      for (let index = row * width + from, end = row * width + x1; index < end; index++) pixels[index] = pixel
    }
  }
  fillEdges(layout, tree, Math.max(2, 1 / zoom), fill)
  const { nodeWidth, nodeHeight } = layoutOptions
  for (const [id, position] of layout.positions) {
    const status: AgentStatus | undefined = agents[id]?.status
    fill(position.x, position.y, nodeWidth, nodeHeight, isFanOutId(id) ? fanOutPixel : statusPixels[status ?? 'queued'])
  }
  return layout.positions.size
}

/**
 * The edges as xyflow's smooth steps run them (down from the parent, across at a turn above the
 * child, down into it), as rectangles `width` thick: each parent's stem down to its lowest turn,
 * one bar per turn across all the children turning there, one drop per child. The same lines as
 * an elbow per child, a third as many shapes.
 */
function fillEdges(layout: TreeLayout, tree: TreeState, width: number, fill: FillRect): void {
  const { nodeWidth, nodeHeight, levelHeight } = layoutOptions
  const elbow = (levelHeight - nodeHeight) / 2
  const half = width / 2
  const parents = new Map<string, { x: number; bottom: number; turns: Map<number, { from: number; to: number }> }>()
  for (const [id, position] of layout.positions) {
    const parentId = isFanOutId(id) ? fanOutParent(id) : tree.agents[id]?.parent_id
    const parentPosition = parentId ? layout.positions.get(parentId) : undefined
    if (!parentId || !parentPosition) continue
    const x = position.x + nodeWidth / 2
    const turn = position.y - elbow
    fill(x - half, turn - half, width, elbow + half, edgePixel)
    let parent = parents.get(parentId)
    if (!parent)
      parents.set(parentId, (parent = { x: parentPosition.x + nodeWidth / 2, bottom: parentPosition.y + nodeHeight, turns: new Map() }))
    const bar = parent.turns.get(turn)
    if (bar) {
      bar.from = Math.min(bar.from, x)
      bar.to = Math.max(bar.to, x)
    } else parent.turns.set(turn, { from: Math.min(parent.x, x), to: Math.max(parent.x, x) })
  }
  for (const parent of parents.values()) {
    let lowest = parent.bottom
    for (const [turn, bar] of parent.turns) {
      lowest = Math.max(lowest, turn)
      fill(bar.from - half, turn - half, bar.to - bar.from + width, width, edgePixel)
    }
    fill(parent.x - half, parent.bottom, width, lowest - parent.bottom, edgePixel)
  }
}

/** The node under a point of the flow, from the layout: what a click on the overview hits. */
export function nodeAt(layout: TreeLayout, point: { x: number; y: number }): string | null {
  for (const [id, position] of layout.positions) {
    if (
      point.x >= position.x &&
      point.x <= position.x + layoutOptions.nodeWidth &&
      point.y >= position.y &&
      point.y <= position.y + layoutOptions.nodeHeight
    )
      return id
  }
  return null
}
