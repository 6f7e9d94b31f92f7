import { BaseEdge, getSmoothStepPath, type EdgeProps } from '@xyflow/react'
import { memo } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { edgeKind, layoutOptions } from './flow-elements'

/** How far a child in its parent's first row lies below the parent's bottom (flow-elements' layout). */
const firstRowDrop = layoutOptions.levelHeight - layoutOptions.nodeHeight

/**
 * The path to a child in a lower row of a grid: along the first row's bus, down the gutter left
 * of the child's column, and in just above it. A smooth step would turn half-way down, behind the
 * nodes of the rows above, and seem to come out of the node above the child.
 */
export function lowerRowPath(sourceX: number, sourceY: number, targetX: number, targetY: number): string {
  const bus = sourceY + firstRowDrop / 2
  const gutter = targetX - (layoutOptions.nodeWidth + layoutOptions.gap) / 2
  const above = targetY - layoutOptions.gap / 2
  return `M ${sourceX},${sourceY} V ${bus} H ${gutter} V ${above} H ${targetX} V ${targetY}`
}

/** How far above its child a background edge's "bg" label sits: inside the gap, clear of the node. */
const labelRise = 14

/**
 * A parent→child edge (a smooth step, as xyflow's own) in its child's status: active edges are
 * blue and dashed (the dashes run unless the pane is marked calm or zoomed out), held and queued
 * ones grey and dashed. A background child's edge (its parent went on without waiting) is dotted
 * and labelled "bg", in the same status colours. It reads the status itself, so only its own
 * edge re-renders on a change.
 */
function TreeEdgeView({ target, sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition }: EdgeProps) {
  const kind = useArbor((state: ArborState) => {
    const status = graphTree(state).agents[target]?.status
    return status ? edgeKind(status) : 'done'
  })
  const background = useArbor((state: ArborState) => graphTree(state).agents[target]?.background === true)
  const path =
    targetY - sourceY > firstRowDrop + 1
      ? lowerRowPath(sourceX, sourceY, targetX, targetY)
      : getSmoothStepPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition })[0]
  // No interaction path: edges are neither selectable nor focusable here.
  if (!background) return <BaseEdge path={path} className={`edge-${kind}`} interactionWidth={0} />
  return (
    <BaseEdge
      path={path}
      className={`edge-${kind} edge-background`}
      interactionWidth={0}
      label="bg"
      labelX={targetX}
      labelY={targetY - labelRise}
      labelBgPadding={[4, 1]}
      labelBgBorderRadius={3}
      labelShowBg
      labelStyle={labelStyle}
      labelBgStyle={labelBgStyle}
    />
  )
}

const labelStyle = { fill: 'var(--muted)', fontSize: 10, fontWeight: 600 }
const labelBgStyle = { fill: 'var(--panel-2)', stroke: 'var(--muted)', strokeOpacity: 0.5 }

export const TreeEdge = memo(TreeEdgeView)
