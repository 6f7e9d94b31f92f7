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
  useStore,
} from '@xyflow/react'
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { AgentNode, type AgentFlowNode } from './AgentNodeView'
import { DepthBands } from './DepthBands'
import { isOverDock } from './dock-hit-test'
import { FitOnGrowth } from './FitOnGrowth'
import { FitOnRequest } from './FitOnRequest'
import { buildEdges, buildFlowNodes, selectEdgeKey } from './flow-elements'
import { StatusMiniMap } from './StatusMiniMap'

const nodeTypes = { agent: AgentNode }
// A replay swaps the tree the graph reads (graphTree); its structure counter is its own, hence the prefix.
const selectStructure = (state: ArborState) => `${state.replay?.cursor ? 'replay' : 'live'}:${graphTree(state).structure}`
const selectTreeJob = (state: ArborState) => state.tree.jobId
const selectCollapsed = (state: ArborState) => state.collapsed
const selectEdges = (state: ArborState) => selectEdgeKey(graphTree(state))
/** Below this zoom nodes are too small to read: spinners and edge dashes stop (they cost repaints). */
const selectZoomedOut = (state: ReactFlowState) => state.transform[2] < 0.45

function Flow() {
  const structure = useArbor(selectStructure)
  const jobId = useArbor(selectTreeJob)
  const collapsed = useArbor(selectCollapsed)
  const edgeKey = useArbor(selectEdges)
  const zoomedOut = useStore(selectZoomedOut)
  const dataCache = useRef(new Map<string, { agentId: string }>())
  const edgeCache = useRef(new Map<string, Edge>())

  // The layout depends only on which agents exist and where they hang (`structure`).
  const laidOut = useMemo(
    () => buildFlowNodes(graphTree(useArbor.getState()), collapsed, dataCache.current),
    [structure, collapsed, jobId],
  )
  const [nodes, setNodes] = useState<AgentFlowNode[]>(laidOut.nodes)
  useEffect(() => setNodes(laidOut.nodes), [laidOut])

  const hidden = useMemo(() => new Set(laidOut.nodes.filter((node) => node.hidden).map((node) => node.id)), [laidOut])
  const edges = useMemo(() => buildEdges(edgeKey, hidden, edgeCache.current), [edgeKey, hidden])
  const visibleCount = laidOut.layout.positions.size

  const onNodesChange = useCallback(
    (changes: NodeChange<AgentFlowNode>[]) => setNodes((current) => applyNodeChanges(changes, current)),
    [],
  )
  const onNodeClick = useCallback((_: ReactMouseEvent, node: Node) => useArbor.getState().inspect(node.id), [])
  const onNodeDrag = useCallback((event: MouseEvent | TouchEvent) => useArbor.getState().setDockHover(isOverDock(event)), [])
  const onNodeDragStop = useCallback(
    (event: MouseEvent | TouchEvent, node: Node) => {
      const state = useArbor.getState()
      if (isOverDock(event)) state.inspect(node.id)
      state.setDockHover(false)
      // Nodes live in the tree layout: a drag is for dropping onto the dock, so snap back.
      setNodes(laidOut.nodes)
    },
    [laidOut],
  )

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={onNodeClick}
      onNodeDrag={onNodeDrag}
      onNodeDragStop={onNodeDragStop}
      className={zoomedOut ? 'zoomed-out' : undefined}
      nodesConnectable={false}
      edgesFocusable={false}
      deleteKeyCode={null}
      colorMode="dark"
      minZoom={0.02}
      maxZoom={1.75}
      onlyRenderVisibleElements={visibleCount > 300}
      fitView
      fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
    >
      <Background variant={BackgroundVariant.Dots} gap={24} size={1} color="#262b33" />
      <DepthBands layout={laidOut.layout} />
      <StatusMiniMap />
      <Controls showInteractive={false} />
      <FitOnGrowth count={visibleCount} jobId={jobId} />
      <FitOnRequest />
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
    </div>
  )
}
