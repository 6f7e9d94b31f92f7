import { Handle, Position, useStore, type NodeProps } from '@xyflow/react'
import { memo, type MouseEvent } from 'react'
import type { BranchBudget } from '@core/trace/model'
import { isLiveStatus } from '@core/trace/statuses'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { useArborFields } from '../store/use-fields'
import { useClock } from '../util/clock'
import { isStalled, liveActivity } from './activity'
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
    // Why a spawn held by a job limit waits: its ghost says so, with Allow and Cancel.
    heldReason: tree.held[id]?.reason ?? null,
    // Its process went silent past the threshold (agent.health): red, with Restart beside Kill.
    unresponsiveSince: tree.unresponsive[id] ?? null,
    // A replayed node's last event is long past: it is not stalled.
    replaying: state.replay !== null,
    // An imported job, or a replay, is read-only: no kill or cancel on its nodes.
    readOnly: state.replay !== null || (state.tree.jobId !== null && state.jobs[state.tree.jobId]?.imported === true),
    // Files its own changes left changed (the Changes tab's count).
    changedFiles: state.changeCounts.jobId === tree.jobId ? (state.changeCounts.byAgent[id] ?? 0) : 0,
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
    // Red at any zoom: its process went silent.
    unresponsive: agent?.ended_at === null && graphTree(state).unresponsive[id] !== undefined,
  }
}

/** The node's branch meter: what it and its descendants spent against the branch's caps (the larger share fills the bar). */
function BranchMeter({ caps, tokens, cost }: { caps: BranchBudget; tokens: number; cost: number | null }) {
  const share = Math.max(caps.tokens ? tokens / caps.tokens : 0, caps.cost_usd ? (cost ?? 0) / caps.cost_usd : 0)
  const level = share >= 1 ? 'over' : share >= 0.8 ? 'warn' : 'ok'
  const parts = [
    caps.tokens !== null ? `${formatTokens(tokens)} / ${formatTokens(caps.tokens)} tok` : null,
    caps.cost_usd !== null ? `${formatCost(cost ?? 0)} / ${formatCost(caps.cost_usd)}` : null,
  ].filter(Boolean)
  return (
    <div
      className={`branch-meter ${level}`}
      data-testid="node-branch-meter"
      data-share={share.toFixed(3)}
      title={`${Math.round(share * 100)}% of this branch's budget (the agent and its subagents)`}
    >
      <span className="branch-meter__label">branch {parts.join(' · ')}</span>
      <span className="branch-meter__bar">
        <span className="branch-meter__fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
    </div>
  )
}

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
    const context = { now: clock.now, unresponsiveSince: tree.unresponsive[id] ?? null }
    return state.replay === null && isStalled(tree.agents[id], tree.subtree[id]?.activeChildren ?? 0, context)
  })
  if (!box.found) return null
  const classes = [
    'agent-node',
    `status-${box.status}`,
    agentStatusLook[box.status].ghost && 'ghost',
    box.selected && 'selected',
    box.unresponsive && 'unresponsive',
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
  const context = (now: number) => ({ now: view.replaying ? null : now, unresponsiveSince: view.unresponsiveSince })
  const stalled = useClock((clock) => !view.replaying && isStalled(agent, view.activeChildren, context(clock.now)))
  // Read at each clock tick: the text changes as a tool or model call goes on.
  const activity = useClock((clock) => (agent ? (liveActivity(agent, context(clock.now))?.text ?? null) : null))
  const activityKind = agent ? (liveActivity(agent, context(0))?.kind ?? null) : null
  if (!agent) return null
  const look = agentStatusLook[agent.status]
  const tokens = agent.usage.input_tokens + agent.usage.output_tokens
  const budget = agent.total_token_budget
  const budgetShare = budget ? Math.min(1, tokens / budget) : 0
  const heldByLimit = agent.status === 'held' && view.heldReason !== null
  const classes = [
    'agent-node',
    `status-${agent.status}`,
    look.ghost && 'ghost',
    heldByLimit && 'held-by-limit',
    activityKind === 'unresponsive' && 'unresponsive',
    view.selected && 'selected',
    stalled && 'stalled',
  ]
  const { askKill, retryNow, toggleCollapsed, openNodeMenu, allowSpawn, cancelSpawn, restartAgent } = useArbor.getState()
  const live = isLiveStatus(agent.status)

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
        {view.changedFiles > 0 && (
          <button
            className="changes-badge nodrag"
            data-testid="node-changes-badge"
            title={`Changed ${view.changedFiles} ${view.changedFiles === 1 ? 'file' : 'files'}: show its changes`}
            onClick={stopAnd(() => useArbor.getState().showChanges(agent.id))}
          >
            ±{view.changedFiles}
          </button>
        )}
        {/* A held spawn's Cancel and Edit prompt… are in its menu (⋯): the ghost's label keeps the room. */}
        {view.wrappingUp && agent.ended_at === null && (
          <span className="wrap-tag" data-testid="node-wrapping-up" title="Told to finish and report within 2 steps">
            wrapping up…
          </span>
        )}
        {!view.readOnly && live && activityKind === 'unresponsive' ? (
          <button
            className="node-button danger nodrag"
            data-testid="node-restart"
            title="Kill its process and restart it from its history"
            onClick={stopAnd(() => void restartAgent(agent.id))}
          >
            Restart
          </button>
        ) : null}
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
        {!view.readOnly && live ? (
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
        {heldByLimit ? (
          <span className="state held-reason" data-testid="node-held-reason" title={`held: ${view.heldReason}`}>
            held: {view.heldReason}
          </span>
        ) : agent.wait && activityKind !== 'unresponsive' ? (
          <WaitLine status={agent.status} wait={agent.wait} />
        ) : activity !== null && activityKind !== null ? (
          <span
            className={`state activity-${activityKind} status-text-${agent.status}`}
            data-testid={
              activityKind === 'waiting' && agent.status === 'waiting_approval' ? 'node-waiting' : `node-activity-${activityKind}`
            }
            title={activity}
          >
            {activity}
          </span>
        ) : (
          <span className={`state status-text-${agent.status}`}>
            {look.label}
            {agent.terminal_reason && agent.terminal_reason !== agent.status ? ` · ${agent.terminal_reason}` : ''}
          </span>
        )}
        {/* A spawn held by a limit has no steps yet, and an unresponsive agent's silence matters more: the text gets the row. */}
        {!heldByLimit && activityKind !== 'unresponsive' && (
          <span className="steps">
            {agent.steps}/{agent.max_steps ?? '∞'} steps
          </span>
        )}
      </div>
      {heldByLimit && !view.readOnly ? (
        <div className="agent-node__held-actions">
          <button className="node-button nodrag" data-testid="node-allow-spawn" onClick={stopAnd(() => void allowSpawn(agent.id))}>
            Allow
          </button>
          <button className="node-button danger nodrag" data-testid="node-cancel-spawn" onClick={stopAnd(() => void cancelSpawn(agent.id))}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="agent-node__usage">
          <span>
            {formatTokens(tokens)}
            {budget ? ` / ${formatTokens(budget)}` : ''} tok
          </span>
          {agent.cost_usd !== null && <span>{formatCost(agent.cost_usd)}</span>}
        </div>
      )}
      {/* A branch's cap counts this agent too: its meter takes the place of the agent's own. */}
      {budget && !agent.branch_budget ? (
        <div className="budget-bar" title={`${Math.round(budgetShare * 100)}% of the token budget`}>
          <div className={budgetShare >= 0.8 ? 'fill warn' : 'fill'} style={{ width: `${budgetShare * 100}%` }} />
        </div>
      ) : null}
      {agent.branch_budget ? <BranchMeter caps={agent.branch_budget} tokens={view.subtreeTokens} cost={view.subtreeCost} /> : null}
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
