import {
  applyNodeChanges,
  Background,
  BackgroundVariant,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  type Edge,
  type Node,
  type NodeChange,
  type ReactFlowState,
  useReactFlow,
  useStore,
} from '@xyflow/react'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { emptyTree } from '../store/tree-state'
import { AgentNode } from './AgentNodeView'
import { DepthBands } from './DepthBands'
import { isOverDock } from './dock-hit-test'
import { fanOutParent, isFanOutId, useFanOuts } from './fan-out'
import { FanOutNode } from './FanOutNode'
import { FanOutPanel } from './FanOutPanel'
import { fitKey, FitOnGrowth } from './FitOnGrowth'
import { FitOnRequest } from './FitOnRequest'
import { NodeMenu } from './NodeMenu'
import { PromptEditDialog } from './PromptEditDialog'
import { BranchBudgetDialog } from './BranchBudgetDialog'
import { RevertDialog } from '../changes/RevertDialog'
import { JobChangesDrawer } from '../changes/JobChanges'
import { MergeConflictDialog } from './MergeConflictDialog'
import {
  boundsOf,
  buildEdges,
  flowNodesFor,
  layoutOptionsFor,
  paneColumns,
  selectCalmEdges,
  selectZoomedOut,
  type FlowNodeCache,
} from './flow-elements'
import { fit } from './fit-viewport'
import type { GraphFlowNode } from './flow-nodes'
import type { TreeLayout } from './layout'
import { layoutInputFor } from './layout-input'
import { nodeAt, OverviewCanvas, useOverview } from './OverviewCanvas'
import { useRevealedCount } from './reveal'
import { StatusMiniMap } from './StatusMiniMap'
import { TreeEdge } from './TreeEdge'
import { useTreeLayout } from './use-tree-layout'

const nodeTypes = { agent: AgentNode, fanOut: FanOutNode }
const edgeTypes = { tree: TreeEdge }
// A replay swaps the tree the graph reads (graphTree); its structure counter is its own, hence the prefix.
const selectStructure = (state: ArborState) => `${state.replay?.cursor ? 'replay' : 'live'}:${graphTree(state).structure}`
const selectTreeJob = (state: ArborState) => state.tree.jobId
const selectCollapsed = (state: ArborState) => state.collapsed
const selectPaneWidth = (state: ReactFlowState) => state.width
const selectPaneHeight = (state: ReactFlowState) => state.height
const never = () => false
const noFlowNodes = flowNodesFor(emptyTree(), { positions: new Map(), bands: [], maxDepth: 0, minX: 0, maxX: 0 })

/** A click on a node: an agent opens in the inspector, a group expands. */
function open(id: string): void {
  if (isFanOutId(id)) useFanOuts.getState().toggle(fanOutParent(id))
  else useArbor.getState().inspect(id)
}

function Flow() {
  const structure = useArbor(selectStructure)
  const jobId = useArbor(selectTreeJob)
  const collapsed = useArbor(selectCollapsed)
  const expandedFanOuts = useFanOuts((state) => state.expanded)
  const zoomedOut = useStore(selectZoomedOut)
  const paneWidth = useStore(selectPaneWidth)
  const paneHeight = useStore(selectPaneHeight)
  const nodeCache = useRef<FlowNodeCache>(new Map())
  const edgeCache = useRef(new Map<string, Edge>())

  // The layout depends only on which agents exist and where they hang (`structure`).
  // A small tree's leaf rows wrap to the pane's width (columns changes only when a node more or less fits).
  const columns = paneColumns(paneWidth, fit.padding)
  const source = useMemo(() => {
    const tree = graphTree(useArbor.getState())
    const input = layoutInputFor(tree, collapsed, expandedFanOuts)
    return { tree, input, options: layoutOptionsFor(input.count, columns) }
  }, [structure, collapsed, jobId, expandedFanOuts, columns])
  const current = useTreeLayout(source)
  const layout = current?.layout ?? noFlowNodes.layout
  const bounds = useMemo(() => boundsOf(layout), [layout])
  const visibleCount = layout.positions.size
  // Until FitOnGrowth has fitted this tree, the zoom to go by is the one the fit is about to set.
  const fitted = useRef('')
  const overview = useOverview(visibleCount, bounds, fitted.current !== fitKey(visibleCount, jobId, paneWidth, paneHeight))
  const calmEdges = useArbor(overview ? never : selectCalmEdges)
  // The overview draws every node itself: xyflow gets none (its cost grows with the nodes it holds).
  const laidOut = useMemo(
    () => (current && !overview ? flowNodesFor(current.tree, current.layout, nodeCache.current) : noFlowNodes),
    [current, overview],
  )
  const revealed = useRevealedCount(laidOut.nodes.length)
  const shown = useMemo(() => laidOut.nodes.slice(0, revealed), [laidOut, revealed])
  // xyflow's own changes (selection, a drag) apply to `nodes`; each new layout or slice replaces
  // them, adjusting state while rendering rather than in an effect (one commit, not two).
  const [nodes, setNodes] = useState<GraphFlowNode[]>(shown)
  const [nodesOf, setNodesOf] = useState(shown)
  if (nodesOf !== shown) {
    setNodesOf(shown)
    setNodes(shown)
  }
  // For the drag handler, so that it keeps one identity (xyflow copies handlers into its store).
  const latestShown = useRef(shown)
  useLayoutEffect(() => {
    latestShown.current = shown
  }, [shown])

  // Edges to nodes not revealed yet are there already (xyflow draws an edge once both ends are):
  // the edge list changes with the layout only, not with every slice.
  const edges = useMemo(() => {
    const drawn = new Set(laidOut.nodes.filter((node) => !node.hidden).map((node) => node.id))
    return buildEdges(laidOut.parents, drawn, edgeCache.current)
  }, [laidOut])

  const onNodesChange = useCallback((changes: NodeChange<GraphFlowNode>[]) => setNodes((current) => applyNodeChanges(changes, current)), [])
  const onNodeClick = useCallback((_: ReactMouseEvent, node: GraphFlowNode) => open(node.id), [])
  const onNodeContextMenu = useCallback((event: ReactMouseEvent, node: GraphFlowNode) => {
    if (node.type !== 'agent') return
    event.preventDefault()
    // From the keyboard (the context-menu key, Shift+F10) there is no pointer: open under the node.
    const box = event.clientX === 0 && event.clientY === 0 ? (event.target as Element).getBoundingClientRect() : null
    useArbor.getState().openNodeMenu({ agentId: node.id, x: box ? box.left : event.clientX, y: box ? box.bottom + 4 : event.clientY })
  }, [])
  const { screenToFlowPosition } = useReactFlow()
  const latestLayout = useRef<TreeLayout | null>(null)
  useLayoutEffect(() => {
    latestLayout.current = overview ? layout : null
  }, [layout, overview])
  // On the overview a click lands on the pane: the layout says which node is under it.
  const onPaneClick = useCallback(
    (event: ReactMouseEvent) => {
      const layout = latestLayout.current
      const id = layout && nodeAt(layout, screenToFlowPosition({ x: event.clientX, y: event.clientY }))
      if (id) open(id)
    },
    [screenToFlowPosition],
  )
  const onNodeDrag = useCallback((event: MouseEvent | TouchEvent) => useArbor.getState().setDockHover(isOverDock(event)), [])
  const onNodeDragStop = useCallback((event: MouseEvent | TouchEvent, node: Node) => {
    const state = useArbor.getState()
    if (isOverDock(event) && node.type === 'agent') state.inspect(node.id)
    state.setDockHover(false)
    // Nodes live in the tree layout: a drag is for dropping onto the dock, so snap back.
    setNodes(latestShown.current)
  }, [])

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={onNodeClick}
      onNodeContextMenu={onNodeContextMenu}
      onPaneClick={onPaneClick}
      onNodeDrag={onNodeDrag}
      onNodeDragStop={onNodeDragStop}
      className={[zoomedOut && 'zoomed-out', calmEdges && 'calm-edges'].filter(Boolean).join(' ') || undefined}
      nodesConnectable={false}
      edgesFocusable={false}
      deleteKeyCode={null}
      colorMode="dark"
      minZoom={0.005}
      maxZoom={1.75}
      onlyRenderVisibleElements={visibleCount > 300}
    >
      <Background variant={BackgroundVariant.Dots} gap={24} size={1} color="#262b33" />
      <DepthBands layout={layout} />
      {overview && current ? <OverviewCanvas tree={current.tree} layout={current.layout} /> : <StatusMiniMap bounds={bounds} />}
      <Controls showInteractive={false} />
      <FitOnGrowth count={visibleCount} jobId={jobId} bounds={bounds} fitted={fitted} />
      <FitOnRequest />
      <FanOutPanel />
    </ReactFlow>
  )
}

const selectGraphState = (state: ArborState) =>
  !state.selectedJobId ? 'none' : state.tree.loading ? 'loading' : state.tree.error ? 'error' : 'ready'
const selectTreeError = (state: ArborState) => state.tree.error

/** The centre of the window: the live delegation tree of the selected job. */
export function GraphView() {
  const graphState = useArbor(selectGraphState)
  const error = useArbor(selectTreeError)
  // The nodes' changed-file badges: fetched for the shown job, then again as its files change.
  const jobId = useArbor((state) => state.tree.jobId)
  useEffect(() => {
    if (jobId) void useArbor.getState().loadChangeCounts(jobId)
  }, [jobId])
  return (
    <div className="graph" data-testid="graph">
      {graphState === 'none' && <div className="graph__empty">Select a job, or run the demo to watch a tree grow.</div>}
      {graphState === 'loading' && <div className="graph__empty">Loading tree…</div>}
      {graphState === 'error' && <div className="graph__empty error">Could not load the tree: {error}</div>}
      {graphState === 'ready' && (
        <ReactFlowProvider>
          <Flow />
        </ReactFlowProvider>
      )}
      <NodeMenu />
      <PromptEditDialog />
      <BranchBudgetDialog />
      <RevertDialog />
      <JobChangesDrawer />
      <MergeConflictDialog />
    </div>
  )
}
