import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { maxApprovalMessage } from '@core/api/job-limits'
import type { PendingApproval } from '@core/api/contract'
import { useArbor, type ArborState } from '../store'
import { shortId } from '../util/format'

const selectApprovals = (state: ArborState) => state.tree.approvals
const noRules: string[] = []
/** A finished job's rules approve nothing any more: shown only while it runs. */
const selectRules = (state: ArborState) =>
  state.tree.jobId && state.jobs[state.tree.jobId]?.status === 'running' ? state.tree.approvedCommands : noRules
/** An imported job is read-only: nothing of it can be approved. */
const selectReadOnly = (state: ArborState) => (state.tree.jobId ? state.jobs[state.tree.jobId]?.imported === true : false)

/** Risky actions waiting for the user: who asks, the command, and why it is risky. */
export function ApprovalsPanel() {
  const approvals = useArbor(useShallow(selectApprovals))
  const rules = useArbor(useShallow(selectRules))
  const readOnly = useArbor(selectReadOnly)
  if ((approvals.length === 0 && rules.length === 0) || readOnly) return null
  return (
    <div className="approvals" data-testid="approvals">
      {approvals.length > 0 && (
        <div className="approvals__title">
          ⚠ {approvals.length} pending approval{approvals.length > 1 ? 's' : ''}
        </div>
      )}
      {approvals.map((approval) => (
        <ApprovalRow key={approval.approval_id} approval={approval} />
      ))}
      {rules.length > 0 && <ApprovedForJob rules={rules} />}
    </div>
  )
}

/** The commands approved for the whole job, each with a way to take the approval back. */
function ApprovedForJob({ rules }: { rules: readonly string[] }) {
  const jobId = useArbor((state) => state.tree.jobId)
  return (
    <div className="approval-rules" data-testid="approval-rules">
      <span className="muted small">Approved for this job (run again without asking):</span>
      {rules.map((command) => (
        <span key={command} className="approval-rule" data-testid="approval-rule">
          <code>{command}</code>
          <button
            type="button"
            className="inline-link"
            data-testid="approval-rule-revoke"
            title="Ask again next time"
            onClick={() => jobId && void useArbor.getState().revokeApprovedCommand(jobId, command)}
          >
            revoke
          </button>
        </span>
      ))}
    </div>
  )
}

function ApprovalRow({ approval }: { approval: PendingApproval }) {
  const agent = useArbor((state) => state.tree.agents[approval.agent_id])
  const [replying, setReplying] = useState(false)
  const [message, setMessage] = useState('')
  const decide = (decision: 'approved' | 'denied', options?: { scope?: 'once' | 'job'; message?: string }) =>
    void useArbor.getState().decideApproval(approval, decision, options)
  const path = approval.path && approval.path.length > 1 ? approval.path.join(' › ') : null
  const said = message.trim()
  return (
    <div className="approval" data-testid="approval" data-approval-id={approval.approval_id} data-depth={agent?.depth}>
      <div className="approval__who">
        <strong>{agent?.label ?? shortId(approval.agent_id)}</strong>
        <span className="muted">
          {agent ? ` ${agent.profile} · d${agent.depth}` : ''} wants to run <code>{approval.tool}</code>
        </span>
      </div>
      {path && (
        <div className="approval__path muted small" data-testid="approval-path">
          {path}
        </div>
      )}
      <pre className="approval__command">{approval.command}</pre>
      {approval.reason && <div className="approval__reason">{approval.reason}</div>}
      <div className={`approval__sandbox small${approval.sandboxed === false ? ' bad' : ''}`} data-testid="approval-sandbox">
        {approval.sandboxed === false ? 'runs without the sandbox: it can touch anything you can' : 'runs in the sandbox'}
      </div>
      <div className="approval__actions">
        <button className="button primary" data-testid="approval-approve" onClick={() => decide('approved')}>
          Approve once
        </button>
        <button
          className="button"
          data-testid="approval-approve-job"
          title="This exact command runs again without asking, from any agent of this job"
          onClick={() => decide('approved', { scope: 'job' })}
        >
          Approve for this job
        </button>
        <button className="button danger" data-testid="approval-deny" onClick={() => decide('denied')}>
          Deny
        </button>
        <button className="button" data-testid="approval-deny-say" aria-expanded={replying} onClick={() => setReplying(!replying)}>
          Deny with a message…
        </button>
      </div>
      {replying && (
        <form
          className="approval__reply"
          onSubmit={(event) => {
            event.preventDefault()
            if (said) decide('denied', { message: said })
          }}
        >
          <textarea
            className="input"
            data-testid="approval-message"
            rows={2}
            maxLength={maxApprovalMessage}
            placeholder="Tell the agent what to do instead"
            value={message}
            autoFocus
            onChange={(event) => setMessage(event.target.value)}
          />
          <button className="button danger" type="submit" data-testid="approval-deny-send" disabled={!said}>
            Deny and send
          </button>
        </form>
      )}
    </div>
  )
}
