import { Handle, Position, useStore, type NodeProps } from '@xyflow/react'
import { memo, type MouseEvent } from 'react'
import type { AgentNode as Agent } from '@core/trace/model'
import { isLiveStatus } from '@core/trace/statuses'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { useArborFields } from '../store/use-fields'
import { stallAfterMs, useClock } from '../util/clock'
import { formatCost, formatTokens } from '../util/format'
import { selectZoomedOut } from './flow-elements'
import type { AgentFlowNode } from './flow-nodes'
import { agentStatusLook } from './status'
import { StatusIcon } from './StatusIcon'
import { WaitLine } from './WaitLine'

function selectNodeView(state: ArborState, id: string) {
  const tree = graphTree(state)
  const subtree = tree.subtree[id]
  return {
    agent: tree.agents[id],
    childCount: tree.children[id]?.length ?? 0,
    subtreeTokens: subtree?.tokens ?? 0,
    subtreeCost: subtree?.cost ?? null,
    subtreeAgents: subtree?.agents ?? 1,
    activeChildren: subtree?.activeChildren ?? 0,
    selected: state.selectedAgentId === id,
    collapsed: state.collapsed[id] === true,
    wrappingUp: tree.wrappingUp[id] === true,
    // A replayed node's last event is long past: it is not stalled.
    replaying: state.replay !== null,
    // An imported job, or a replay, is read-only: no kill or cancel on its nodes.
    readOnly: state.replay !== null || (state.tree.jobId !== null && state.jobs[state.tree.jobId]?.imported === true),
  }
}

/** What a zoomed-out node shows: a box in its status colour. It changes with the status, not with every step. */
function selectNodeBox(state: ArborState, id: string) {
  const agent = graphTree(state).agents[id]
  return {
    found: agent !== undefined,
    status: agent?.status ?? 'queued',
    depth: agent?.depth ?? 0,
    profile: agent?.profile ?? '',
    parentId: agent?.parent_id ?? '',
    task: agent?.task ?? '',
    selected: state.selectedAgentId === id,
  }
}

const isStalled = (agent: Agent | undefined, activeChildren: number, now: number): boolean =>
  agent !== undefined && agent.status === 'running' && activeChildren === 0 && now - Date.parse(agent.last_event_at) > stallAfterMs

const stopAnd = (action: (event: MouseEvent<HTMLButtonElement>) => void) => (event: MouseEvent<HTMLButtonElement>) => {
  event.stopPropagation()
  action(event)
}

/**
 * One agent of the tree. Reads its own state from the store; node data holds only the id. Zoomed
 * out, text is too small to read: the node is a box in its status colour, which re-renders only
 * when the status changes, not on every step of a running agent.
 */
function AgentNodeView({ id }: NodeProps<AgentFlowNode>) {
  const zoomedOut = useStore(selectZoomedOut)
  return zoomedOut ? <AgentBox id={id} /> : <AgentCard id={id} />
}

function AgentBox({ id }: { id: string }) {
  const box = useArborFields((state: ArborState) => selectNodeBox(state, id))
  // Read at each clock tick, so steps of a running agent do not re-render the box.
  const stalled = useClock((clock) => {
    const state = useArbor.getState()
    const tree = graphTree(state)
    return state.replay === null && isStalled(tree.agents[id], tree.subtree[id]?.activeChildren ?? 0, clock.now)
  })
  if (!box.found) return null
  const classes = [
    'agent-node',
    `status-${box.status}`,
    agentStatusLook[box.status].ghost && 'ghost',
    box.selected && 'selected',
    stalled && 'stalled',
  ]
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid="agent-node"
      data-agent-id={id}
      data-status={box.status}
      data-depth={box.depth}
      data-profile={box.profile}
      data-parent-id={box.parentId}
      title={box.task}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="agent-handle" />
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="agent-handle" />
    </div>
  )
}

function AgentCard({ id }: { id: string }) {
  const view = useArborFields((state: ArborState) => selectNodeView(state, id))
  const agent = view.agent
  const stalled = useClock((clock) => !view.replaying && isStalled(agent, view.activeChildren, clock.now))
  if (!agent) return null
  const look = agentStatusLook[agent.status]
  const tokens = agent.usage.input_tokens + agent.usage.output_tokens
  const budget = agent.total_token_budget
  const budgetShare = budget ? Math.min(1, tokens / budget) : 0
  const classes = ['agent-node', `status-${agent.status}`, look.ghost && 'ghost', view.selected && 'selected', stalled && 'stalled']
  const { askKill, retryNow, toggleCollapsed, openNodeMenu } = useArbor.getState()

  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid="agent-node"
      data-agent-id={agent.id}
      data-status={agent.status}
      data-depth={agent.depth}
      data-profile={agent.profile}
      data-parent-id={agent.parent_id ?? ''}
      title={agent.task}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="agent-handle" />
      <div className="agent-node__head">
        <StatusIcon status={agent.status} />
        <span className="agent-node__label">{agent.label}</span>
        {look.ghost && <span className="ghost-tag">{agent.status === 'held' ? 'HELD' : 'QUEUED'}</span>}
        {stalled && (
          <span className="stall-tag" title="No event for 60 s">
            STALLED
          </span>
        )}
        {/* A held spawn's Cancel and Edit prompt… are in its menu (⋯): the ghost's label keeps the room. */}
        {view.wrappingUp && agent.ended_at === null && (
          <span className="wrap-tag" data-testid="node-wrapping-up" title="Told to finish and report within 2 steps">
            wrapping up…
          </span>
        )}
        {!view.readOnly && agent.wait?.reason === 'rate_limit' ? (
          <button
            className="node-button nodrag"
            data-testid="node-retry-now"
            title="Make its model call again now, without waiting for the rate limit"
            onClick={stopAnd(() => void retryNow(agent.id))}
          >
            Retry now
          </button>
        ) : null}
        {!view.readOnly && isLiveStatus(agent.status) ? (
          <button className="node-button danger nodrag" data-testid="node-kill" onClick={stopAnd(() => askKill(agent.id))}>
            Kill
          </button>
        ) : null}
        <button
          className="node-button node-menu-button nodrag"
          data-testid="node-menu-button"
          aria-label={`Actions for ${agent.label}`}
          aria-haspopup="menu"
          title="Actions (or right-click the node, or press .)"
          onClick={stopAnd((event) => {
            const box = event.currentTarget.getBoundingClientRect()
            openNodeMenu({ agentId: agent.id, x: box.left, y: box.bottom + 4 })
          })}
        >
          ⋯
        </button>
      </div>
      <div className="agent-node__meta">
        <span className="profile">{agent.profile}</span>
        <span className="model">{agent.model ?? '—'}</span>
        <span className="depth">d{agent.depth}</span>
      </div>
      <div className="agent-node__activity">
        {agent.status === 'waiting_approval' ? (
          // Before its tool: the command waits for the user, not for the tool.
          <span className="state status-text-waiting_approval" data-testid="node-waiting">
            ⚠ waiting for you
          </span>
        ) : agent.wait ? (
          <WaitLine status={agent.status} wait={agent.wait} />
        ) : agent.current_tool ? (
          <span className="tool">▸ {agent.current_tool}</span>
        ) : (
          <span className={`state status-text-${agent.status}`}>
            {look.label}
            {agent.terminal_reason && agent.terminal_reason !== agent.status ? ` · ${agent.terminal_reason}` : ''}
          </span>
        )}
        <span className="steps">
          {agent.steps}/{agent.max_steps ?? '∞'} steps
        </span>
      </div>
      <div className="agent-node__usage">
        <span>
          {formatTokens(tokens)}
          {budget ? ` / ${formatTokens(budget)}` : ''} tok
        </span>
        {agent.cost_usd !== null && <span>{formatCost(agent.cost_usd)}</span>}
      </div>
      {budget ? (
        <div className="budget-bar" title={`${Math.round(budgetShare * 100)}% of the token budget`}>
          <div className={budgetShare >= 0.8 ? 'fill warn' : 'fill'} style={{ width: `${budgetShare * 100}%` }} />
        </div>
      ) : null}
      {view.childCount > 0 && (
        <div className="agent-node__subtree">
          <span>
            Σ {view.subtreeAgents} agents · {formatTokens(view.subtreeTokens)} tok
            {view.subtreeCost !== null ? ` · ${formatCost(view.subtreeCost)}` : ''}
          </span>
          <button className="collapse-button nodrag" onClick={stopAnd(() => toggleCollapsed(agent.id))}>
            {view.collapsed ? `▸ ${view.childCount}` : '▾'}
          </button>
        </div>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="agent-handle" />
    </div>
  )
}

export const AgentNode = memo(AgentNodeView)
