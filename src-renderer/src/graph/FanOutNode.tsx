import { Handle, Position, type NodeProps } from '@xyflow/react'
import { memo } from 'react'
import { agentStatuses, type AgentStatus } from '@core/trace/statuses'
import { graphTree } from '../store/replay-slice'
import { useArborFields } from '../store/use-fields'
import { fanOutTotals } from './fan-out'
import type { FanOutFlowNode } from './flow-nodes'
import { agentStatusColor, agentStatusLook } from './status'

/** Totals a user must not miss come first, and mark the group. */
const attentionStatuses: readonly AgentStatus[] = ['waiting_approval', 'failed']
const shownOrder: readonly AgentStatus[] = [...attentionStatuses, ...agentStatuses.filter((status) => !attentionStatuses.includes(status))]

/**
 * A parent's many children as one node: their count and how many are in each status, live (the
 * totals are recounted on each tree update; they are the children of one parent, a few hundred at
 * most). Clicking it expands the fan-out (GraphView's node click).
 */
function FanOutNodeView({ data }: NodeProps<FanOutFlowNode>) {
  const totals = useArborFields((state) => fanOutTotals(graphTree(state), data.parentId))
  const attention = attentionStatuses.some((status) => totals[status] > 0)
  return (
    <div
      className={['agent-node', 'fan-out-node', attention && 'attention'].filter(Boolean).join(' ')}
      data-testid="fan-out-node"
      data-parent-id={data.parentId}
      data-count={totals.count}
      title="Click to show every agent"
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="agent-handle" />
      <div className="fan-out-node__count">
        <span data-testid="fan-out-count">{totals.count}</span> agents
      </div>
      <ul className="fan-out-node__totals">
        {shownOrder
          .filter((status) => totals[status] > 0)
          .map((status) => (
            <li key={status} data-testid="fan-out-total" data-status={status} style={{ color: agentStatusColor[status] }}>
              <span className="fan-out-node__number">{totals[status]}</span> {agentStatusLook[status].label}
            </li>
          ))}
      </ul>
      <div className="fan-out-node__hint">▸ click to expand</div>
    </div>
  )
}

export const FanOutNode = memo(FanOutNodeView)
