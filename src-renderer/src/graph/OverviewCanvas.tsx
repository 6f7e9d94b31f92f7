import { getViewportForBounds, useStore, type ReactFlowState, type Rect } from '@xyflow/react'
import { useEffect, useRef } from 'react'
import type { AgentStatus } from '../../../src-main/core/trace/events'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import type { TreeState } from '../store/tree-state'
import { fanOutParent, isFanOutId } from './fan-out'
import { fit } from './FitOnGrowth'
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
    state.width > 0 && state.height > 0 ? getViewportForBounds(bounds, state.width, state.height, state.minZoom, fit.maxZoom, fit.padding).zoom : 1,
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
 */
export function OverviewCanvas({ tree, layout }: { tree: TreeState; layout: TreeLayout }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const transform = useStore(selectTransform)
  const width = useStore((state) => state.width)
  const height = useStore((state) => state.height)
  const agents = useArbor(selectAgents)
  const last = useRef<Drawn | null>(null)

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
      const drawn = drawOverview(context, layout, tree, agents, transform, ratio)
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
  a.layout === b.layout && a.tree === b.tree && a.width === b.width && a.height === b.height && a.transform.every((value, index) => value === b.transform[index])

function sameStatuses(layout: TreeLayout, before: TreeState['agents'], after: TreeState['agents']): boolean {
  if (before === after) return true
  for (const id of layout.positions.keys()) if (before[id]?.status !== after[id]?.status) return false
  return true
}

/** Draws every node and edge of the layout; returns the nodes drawn. */
function drawOverview(
  context: CanvasRenderingContext2D,
  layout: TreeLayout,
  tree: TreeState,
  agents: TreeState['agents'],
  [x, y, zoom]: ReactFlowState['transform'],
  ratio: number,
): number {
  const { nodeWidth, nodeHeight, levelHeight } = layoutOptions
  context.setTransform(1, 0, 0, 1, 0, 0)
  context.clearRect(0, 0, context.canvas.width, context.canvas.height)
  context.setTransform(ratio * zoom, 0, 0, ratio * zoom, ratio * x, ratio * y)

  // Edges as elbows, as xyflow's smooth steps run: down from the parent, across, down into the child.
  const elbow = (levelHeight - nodeHeight) / 2
  context.beginPath()
  for (const [id, position] of layout.positions) {
    const parentId = isFanOutId(id) ? fanOutParent(id) : tree.agents[id]?.parent_id
    const parent = parentId ? layout.positions.get(parentId) : undefined
    if (!parent) continue
    const fromX = parent.x + nodeWidth / 2
    const toX = position.x + nodeWidth / 2
    const turn = position.y - elbow
    context.moveTo(fromX, parent.y + nodeHeight)
    context.lineTo(fromX, turn)
    context.lineTo(toX, turn)
    context.lineTo(toX, position.y)
  }
  context.strokeStyle = edgeColour
  context.lineWidth = Math.max(2, 1 / zoom)
  context.stroke()

  // One path and one fill per colour: boxes grouped by status.
  const byColour = new Map<string, { x: number; y: number }[]>()
  for (const [id, position] of layout.positions) {
    const status: AgentStatus | undefined = agents[id]?.status
    const colour = isFanOutId(id) ? fanOutColour : status ? agentStatusColor[status] : agentStatusColor.queued
    let boxes = byColour.get(colour)
    if (!boxes) byColour.set(colour, (boxes = []))
    boxes.push(position)
  }
  for (const [colour, boxes] of byColour) {
    context.beginPath()
    for (const box of boxes) context.rect(box.x, box.y, nodeWidth, nodeHeight)
    context.fillStyle = colour
    context.fill()
  }
  return layout.positions.size
}

/** The node under a point of the flow, from the layout: what a click on the overview hits. */
export function nodeAt(layout: TreeLayout, point: { x: number; y: number }): string | null {
  for (const [id, position] of layout.positions) {
    if (point.x >= position.x && point.x <= position.x + layoutOptions.nodeWidth && point.y >= position.y && point.y <= position.y + layoutOptions.nodeHeight) return id
  }
  return null
}
