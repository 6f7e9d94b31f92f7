import { Position, type Edge, type ReactFlowState, type Rect } from '@xyflow/react'
import type { AgentStatus } from '@core/trace/events'
import { isLiveStatus } from '@core/trace/statuses'
import type { TreeState } from '../store/tree-state'
import { fanOutColumns, fanOutId } from './fan-out'
import type { AgentFlowNode, FanOutFlowNode, GraphFlowNode } from './flow-nodes'
import type { LayoutOptions, TreeLayout } from './layout'
import { layoutInputFor } from './layout-input'
import { runLayoutRequest } from './layout-request'

export const layoutOptions: LayoutOptions = { nodeWidth: 256, nodeHeight: 138, gap: 28, levelHeight: 210, maxColumns: fanOutColumns }

/** The smallest zoom a small tree's fit should need: below it a node's text is too small to read. */
export const readableZoom = 0.75
/** Trees up to this many drawn nodes wrap their leaf rows to the pane; bigger ones keep one layout whatever the pane. */
export const paneWrapUpTo = 40

/**
 * How many nodes side by side fit the graph pane at readableZoom, with the fit's padding: the
 * width a small tree's rows of leaves wrap at (at least 2; null before the pane is measured).
 */
export function paneColumns(paneWidth: number, padding: number): number | null {
  if (paneWidth <= 0) return null
  const step = layoutOptions.nodeWidth + layoutOptions.gap
  return Math.max(2, Math.floor((paneWidth / (readableZoom * (1 + padding)) + layoutOptions.gap) / step))
}

/**
 * The layout for a tree of `count` drawn nodes in a pane `columns` nodes wide (paneColumns): a
 * small tree's leaf siblings beyond what the pane holds wrap into rows, so that its fit stays
 * readable with the inspector open (four children in one row come out at 60 % zoom there). A big
 * tree is fitted zoomed out anyway and keeps its own layout.
 */
export function layoutOptionsFor(count: number, columns: number | null): LayoutOptions {
  if (columns === null || count > paneWrapUpTo) return layoutOptions
  return { ...layoutOptions, wrapAfter: columns, maxColumns: Math.min(columns, fanOutColumns) }
}

/** Below this zoom nodes are too small to read: they draw as boxes, spinners and edge dashes stop (they cost repaints). */
export const zoomedOutBelow = 0.45
export const selectZoomedOut = (state: ReactFlowState): boolean => state.transform[2] < zoomedOutBelow

/**
 * Every node has a fixed size, so its size and handles are known without measuring the DOM.
 * Otherwise xyflow mounts every node once to measure it, even off-screen ones (a second-long
 * frame at 2,000 agents, on load and on each spawn), and holds fitView until all are measured.
 */
const nodeSize = { width: layoutOptions.nodeWidth, height: layoutOptions.nodeHeight }
const nodeHandles: NonNullable<GraphFlowNode['handles']> = [
  { type: 'target', position: Position.Top, x: layoutOptions.nodeWidth / 2, y: 0, width: 1, height: 1 },
  { type: 'source', position: Position.Bottom, x: layoutOptions.nodeWidth / 2, y: layoutOptions.nodeHeight, width: 1, height: 1 },
]

export interface FlowNodes {
  /** Every agent in spawn order (parents before their children), hidden ones included; then the fan-out groups. */
  nodes: GraphFlowNode[]
  layout: TreeLayout
  /** The box around the visible nodes, in flow coordinates: what fitting the view shows. */
  bounds: Rect
  /** Each agent's (and group's) parent, for those whose parent is in the tree: the edges. */
  parents: Map<string, string>
}

/**
 * The previous node object per agent. A node whose place has not changed is handed back as the
 * same object, so xyflow keeps its internals (adoptUserNodes compares by identity) and neither it,
 * its edges nor its minimap rect re-render when another agent joins the tree.
 */
export type FlowNodeCache = Map<string, GraphFlowNode>

/**
 * xyflow nodes at their tree-layout positions; descendants of a collapsed node are hidden. A
 * parent with many children gets one group node as its only child unless its fan-out is expanded
 * (the children, and their descendants, are hidden at the parent meanwhile). Lays the tree out
 * here and now; the graph itself takes its layout from useTreeLayout (a worker, for a big tree).
 */
export function buildFlowNodes(
  tree: TreeState,
  collapsed: Record<string, true>,
  cache: FlowNodeCache = new Map(),
  expandedFanOuts: Record<string, true> = {},
): FlowNodes {
  const { layout } = runLayoutRequest({ id: 0, input: layoutInputFor(tree, collapsed, expandedFanOuts), options: layoutOptions })
  return flowNodesFor(tree, layout, cache)
}

/** xyflow nodes for `tree` at the positions of `layout` (made from this same tree); a node the layout leaves out is hidden. */
export function flowNodesFor(tree: TreeState, layout: TreeLayout, cache: FlowNodeCache = new Map()): FlowNodes {
  const nodes: GraphFlowNode[] = []
  const parents = new Map<string, string>()
  for (const id of tree.order) {
    const parent = tree.agents[id]?.parent_id
    if (parent && tree.agents[parent]) parents.set(id, parent)
    const laidOut = layout.positions.get(id)
    const position = laidOut ?? hiddenPosition(tree, layout, id)
    const hidden = laidOut === undefined
    const before = cache.get(id)
    if (before?.type === 'agent' && before.position.x === position.x && before.position.y === position.y && before.hidden === hidden) {
      nodes.push(before)
      continue
    }
    const node: AgentFlowNode = {
      id,
      type: 'agent',
      position: { x: position.x, y: position.y },
      // The same data object across rebuilds, so the memoised node view skips re-rendering.
      data: before?.type === 'agent' ? before.data : { agentId: id },
      width: layoutOptions.nodeWidth,
      height: layoutOptions.nodeHeight,
      measured: nodeSize,
      handles: nodeHandles,
      hidden,
      connectable: false,
    }
    cache.set(id, node)
    nodes.push(node)
  }
  for (const parentId of tree.order) {
    const id = fanOutId(parentId)
    const position = layout.positions.get(id)
    if (!position) continue
    parents.set(id, parentId)
    nodes.push(fanOutNode(id, parentId, position, cache))
  }
  return { nodes, layout, bounds: boundsOf(layout), parents }
}

/** The box around every node of a layout, in flow coordinates: what fitting the view shows. */
export function boundsOf(layout: TreeLayout): Rect {
  if (layout.positions.size === 0) return { x: 0, y: 0, width: 0, height: 0 }
  let top = Infinity
  let bottom = -Infinity
  for (const { y } of layout.positions.values()) {
    top = Math.min(top, y)
    bottom = Math.max(bottom, y + layoutOptions.nodeHeight)
  }
  return { x: layout.minX, y: top, width: layout.maxX - layout.minX, height: bottom - top }
}

function fanOutNode(id: string, parentId: string, position: { x: number; y: number }, cache: FlowNodeCache): FanOutFlowNode {
  const before = cache.get(id)
  if (before?.type === 'fanOut' && before.position.x === position.x && before.position.y === position.y) return before
  const node: FanOutFlowNode = {
    id,
    type: 'fanOut',
    position: { x: position.x, y: position.y },
    data: { parentId },
    width: layoutOptions.nodeWidth,
    height: layoutOptions.nodeHeight,
    measured: nodeSize,
    handles: nodeHandles,
    connectable: false,
    draggable: false,
  }
  cache.set(id, node)
  return node
}

/** A hidden node sits at its nearest visible ancestor (its collapsed ancestor). */
function hiddenPosition(tree: TreeState, layout: TreeLayout, id: string): { x: number; y: number } {
  let parent = tree.agents[id]?.parent_id ?? null
  while (parent) {
    const position = layout.positions.get(parent)
    if (position) return position
    parent = tree.agents[parent]?.parent_id ?? null
  }
  return { x: 0, y: 0 }
}

export type EdgeKind = 'active' | 'ghost' | 'done' | 'failed'

export const edgeKind = (status: AgentStatus): EdgeKind => {
  if (isLiveStatus(status)) return 'active'
  if (status === 'held' || status === 'queued') return 'ghost'
  if (status === 'failed' || status === 'killed') return 'failed'
  return 'done'
}

/**
 * Above this many running children, edges stay blue but stop animating: a dash animation
 * repaints every edge each frame, which is what makes big trees stutter.
 */
export const maxAnimatedEdges = 50

const calmByAgents = new WeakMap<TreeState['agents'], boolean>()

/**
 * Whether more agents are active than edges may animate; Flow marks the pane with it, so no edge
 * changes. Counted once per tree update, not on every change of the store.
 */
export function selectCalmEdges(state: { tree: TreeState }): boolean {
  const known = calmByAgents.get(state.tree.agents)
  if (known !== undefined) return known
  let active = 0
  // By `order`, not Object.values(agents): a copy of 10,000 values before the first is looked at.
  for (const id of state.tree.order) {
    const agent = state.tree.agents[id]
    if (agent?.parent_id && state.tree.agents[agent.parent_id] && edgeKind(agent.status) === 'active') active += 1
    // Past the limit the answer is known: a big running tree is not counted to its end.
    if (active > maxAnimatedEdges) break
  }
  calmByAgents.set(state.tree.agents, active > maxAnimatedEdges)
  return active > maxAnimatedEdges
}

/**
 * The parent→child edges between drawn nodes (one to a hidden node is left out). They change only
 * with the tree's shape: each edge's look follows its child's status in TreeEdge, so a status
 * change does not hand xyflow a new edge list (which re-checks every edge).
 */
export function buildEdges(parents: ReadonlyMap<string, string>, drawn: ReadonlySet<string>, cache: Map<string, Edge>): Edge[] {
  const edges: Edge[] = []
  for (const [target, source] of parents) {
    if (!drawn.has(target) || !drawn.has(source)) continue
    const id = `edge-${target}`
    let edge = cache.get(id)
    if (!edge || edge.source !== source) {
      edge = { id, source, target, type: 'tree', selectable: false }
      cache.set(id, edge)
    }
    edges.push(edge)
  }
  return edges
}
