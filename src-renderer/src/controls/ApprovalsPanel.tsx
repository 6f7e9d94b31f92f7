import { useShallow } from 'zustand/react/shallow'
import type { PendingApproval } from '@core/api/contract'
import { useArbor, type ArborState } from '../store'
import { shortId } from '../util/format'

const selectApprovals = (state: ArborState) => state.tree.approvals
/** An imported job is read-only: nothing of it can be approved. */
const selectReadOnly = (state: ArborState) => (state.tree.jobId ? state.jobs[state.tree.jobId]?.imported === true : false)

/** Risky actions waiting for the user: who asks, the command, and why it is risky. */
export function ApprovalsPanel() {
  const approvals = useArbor(useShallow(selectApprovals))
  const readOnly = useArbor(selectReadOnly)
  if (approvals.length === 0 || readOnly) return null
  return (
    <div className="approvals" data-testid="approvals">
      <div className="approvals__title">
        ⚠ {approvals.length} pending approval{approvals.length > 1 ? 's' : ''}
      </div>
      {approvals.map((approval) => (
        <ApprovalRow key={approval.approval_id} approval={approval} />
      ))}
    </div>
  )
}

function ApprovalRow({ approval }: { approval: PendingApproval }) {
  const agent = useArbor((state) => state.tree.agents[approval.agent_id])
  const decide = (decision: 'approved' | 'denied') => void useArbor.getState().decideApproval(approval, decision)
  return (
    <div className="approval" data-testid="approval" data-approval-id={approval.approval_id}>
      <div className="approval__who">
        <strong>{agent?.label ?? shortId(approval.agent_id)}</strong>
        <span className="muted">
          {agent ? ` ${agent.profile} · d${agent.depth}` : ''} wants to run <code>{approval.tool}</code>
        </span>
      </div>
      <pre className="approval__command">{approval.command}</pre>
      {approval.reason && <div className="approval__reason">{approval.reason}</div>}
      <div className="approval__actions">
        <button className="button primary" data-testid="approval-approve" onClick={() => decide('approved')}>
          Approve once
        </button>
        <button className="button danger" data-testid="approval-deny" onClick={() => decide('denied')}>
          Deny
        </button>
      </div>
    </div>
  )
}
