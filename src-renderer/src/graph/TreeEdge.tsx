import { BaseEdge, getSmoothStepPath, type EdgeProps } from '@xyflow/react'
import { memo } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { edgeKind } from './flow-elements'

/**
 * A parent→child edge (a smooth step, as xyflow's own) in its child's status: active edges are
 * blue and dashed (the dashes run unless the pane is marked calm or zoomed out), held and queued
 * ones grey and dashed. It reads the status itself, so only its own edge re-renders on a change.
 */
function TreeEdgeView({ target, sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition }: EdgeProps) {
  const kind = useArbor((state: ArborState) => {
    const status = graphTree(state).agents[target]?.status
    return status ? edgeKind(status) : 'done'
  })
  const [path] = getSmoothStepPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition })
  // No interaction path: edges are neither selectable nor focusable here.
  return <BaseEdge path={path} className={`edge-${kind}`} interactionWidth={0} />
}

export const TreeEdge = memo(TreeEdgeView)
