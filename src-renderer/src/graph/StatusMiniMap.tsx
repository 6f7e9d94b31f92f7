import { MiniMap, type MiniMapNodeProps } from '@xyflow/react'
import { memo } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
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

/** The minimap, each agent in its status colour. */
export function StatusMiniMap() {
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
