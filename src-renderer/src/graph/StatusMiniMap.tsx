import { MiniMap, useStore, type MiniMapNodeProps, type ReactFlowState, type Rect } from '@xyflow/react'
import { memo, useCallback } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { allInView } from './fit-viewport'
import { agentStatusColor } from './status'

/**
 * xyflow wraps `nodeColor` and friends in a new function on every render of its node list unless
 * they are functions already, which re-renders every rect; these never change, and each rect
 * reads its own agent's status instead of a colour function that changes with any status.
 */
const none = (): string => ''

function StatusMiniMapNodeView({ id, x, y, width, height, borderRadius, strokeWidth, shapeRendering }: MiniMapNodeProps) {
  const status = useArbor((state: ArborState) => graphTree(state).agents[id]?.status)
  return (
    <rect
      className="react-flow__minimap-node"
      x={x}
      y={y}
      rx={borderRadius}
      ry={borderRadius}
      width={width}
      height={height}
      // A style, as xyflow's own rects: its stylesheet's fill would win over the attribute.
      style={{ fill: status ? agentStatusColor[status] : '#444', strokeWidth }}
      shapeRendering={shapeRendering}
    />
  )
}

const StatusMiniMapNode = memo(StatusMiniMapNodeView)

/**
 * The minimap, each agent in its status colour; only while some of the tree is out of view, where
 * it helps to find the rest: over a tree that is all in view it would only cover a node.
 */
export function StatusMiniMap({ bounds }: { bounds: Rect }) {
  const outOfView = useStore(
    useCallback((state: ReactFlowState) => state.width > 0 && !allInView(bounds, state.transform, state.width, state.height), [bounds]),
  )
  if (!outOfView) return null
  return (
    <MiniMap
      pannable
      zoomable
      nodeComponent={StatusMiniMapNode}
      nodeColor={none}
      nodeStrokeColor={none}
      nodeClassName={none}
      nodeStrokeWidth={0}
      maskColor="rgba(10, 12, 16, 0.7)"
    />
  )
}
