import { MiniMap, type Node } from '@xyflow/react'
import { useCallback } from 'react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { agentStatusColor } from './status'

/** Changes whenever any agent's status does, so the minimap repaints its colours. */
const selectStatusKey = (state: ArborState): string => {
  const tree = graphTree(state)
  let key = ''
  for (const id of tree.order) key += `${tree.agents[id]?.status ?? ''},`
  return key
}

/** The minimap, each agent in its status colour. */
export function StatusMiniMap() {
  const statusKey = useArbor(selectStatusKey)
  const nodeColor = useCallback(
    (node: Node): string => {
      void statusKey
      const status = graphTree(useArbor.getState()).agents[node.id]?.status
      return status ? agentStatusColor[status] : '#444'
    },
    [statusKey],
  )
  return <MiniMap pannable zoomable nodeColor={nodeColor} nodeStrokeWidth={0} maskColor="rgba(10, 12, 16, 0.7)" />
}
