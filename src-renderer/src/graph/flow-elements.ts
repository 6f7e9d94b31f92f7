import { Position, type Edge } from '@xyflow/react'
import type { AgentStatus } from '../../../src-main/core/trace/events'
import { rootKey, type TreeState } from '../store/tree-state'
import type { AgentFlowNode } from './AgentNodeView'
import { layoutTree, type LayoutOptions, type TreeLayout } from './layout'

export const layoutOptions: LayoutOptions = { nodeWidth: 256, nodeHeight: 138, gap: 28, levelHeight: 210 }

/**
 * Every node has a fixed size, so its size and handles are known without measuring the DOM.
 * Otherwise xyflow mounts every node once to measure it, even off-screen ones (a second-long
 * frame at 2,000 agents, on load and on each spawn), and holds fitView until all are measured.
 */
const nodeSize = { width: layoutOptions.nodeWidth, height: layoutOptions.nodeHeight }
const nodeHandles: NonNullable<AgentFlowNode['handles']> = [
  { type: 'target', position: Position.Top, x: layoutOptions.nodeWidth / 2, y: 0, width: 1, height: 1 },
  { type: 'source', position: Position.Bottom, x: layoutOptions.nodeWidth / 2, y: layoutOptions.nodeHeight, width: 1, height: 1 },
]

export interface FlowNodes {
  nodes: AgentFlowNode[]
  layout: TreeLayout
}

/** xyflow nodes at their tree-layout positions; descendants of a collapsed node are hidden. */
export function buildFlowNodes(
  tree: TreeState,
  collapsed: Record<string, true>,
  dataCache: Map<string, { agentId: string }> = new Map(),
): FlowNodes {
  const childrenOf = (id: string): readonly string[] => (collapsed[id] ? [] : (tree.children[id] ?? []))
  const layout = layoutTree(
    { roots: tree.children[rootKey] ?? [], childrenOf, rootDepth: (id) => tree.agents[id]?.depth ?? 0 },
    layoutOptions,
  )
  const nodes: AgentFlowNode[] = []
  for (const id of tree.order) {
    const position = layout.positions.get(id) ?? hiddenPosition(tree, layout, id)
    nodes.push({
      id,
      type: 'agent',
      position: { x: position.x, y: position.y },
      data: dataFor(dataCache, id),
      width: layoutOptions.nodeWidth,
      height: layoutOptions.nodeHeight,
      measured: nodeSize,
      handles: nodeHandles,
      hidden: !layout.positions.has(id),
      connectable: false,
    })
  }
  return { nodes, layout }
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
  if (status === 'running' || status === 'waiting_approval') return 'active'
  if (status === 'held' || status === 'queued') return 'ghost'
  if (status === 'failed' || status === 'killed') return 'failed'
  return 'done'
}

/** One string naming every parent→child edge and its kind: edges rebuild only when it changes. */
export function selectEdgeKey(tree: TreeState): string {
  let key = ''
  for (const id of tree.order) {
    const agent = tree.agents[id]
    if (!agent?.parent_id || !tree.agents[agent.parent_id]) continue
    key += `${agent.parent_id}\t${id}\t${edgeKind(agent.status)}\n`
  }
  return key
}

/**
 * Above this many running children, edges stay blue but stop animating: a dash animation
 * repaints every edge each frame, which is what makes big trees stutter.
 */
export const maxAnimatedEdges = 50

export function buildEdges(edgeKey: string, hidden: ReadonlySet<string>, cache: Map<string, Edge>): Edge[] {
  const lines = edgeKey.split('\n').filter(Boolean)
  const active = lines.reduce((count, line) => count + (line.endsWith('\tactive') ? 1 : 0), 0)
  const animate = active <= maxAnimatedEdges
  const edges: Edge[] = []
  for (const line of lines) {
    const [source, target, kind] = line.split('\t') as [string, string, EdgeKind]
    if (hidden.has(target)) continue
    const id = `edge-${target}`
    const animated = animate && kind === 'active'
    let edge = cache.get(id)
    if (!edge || edge.className !== `edge-${kind}` || edge.animated !== animated) {
      edge = { id, source, target, type: 'smoothstep', animated, className: `edge-${kind}`, selectable: false }
      cache.set(id, edge)
    }
    edges.push(edge)
  }
  return edges
}

/** The same data object per agent across rebuilds, so memoised nodes skip re-rendering. */
function dataFor(cache: Map<string, { agentId: string }>, id: string): { agentId: string } {
  let data = cache.get(id)
  if (!data) {
    data = { agentId: id }
    cache.set(id, data)
  }
  return data
}
