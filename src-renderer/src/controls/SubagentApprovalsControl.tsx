import { subagentApprovalModes, type SubagentApprovals } from '@core/trace/statuses'

/** How each mode is named: in the toolbar's control, in the new-job form, and what it means. */
export const approvalModeText: Record<SubagentApprovals, { label: string; option: string; title: string }> = {
  deny: {
    label: 'Deny',
    option: 'Deny: never run them',
    title: 'Subagents’ risky commands are denied; the agent is told and can take another route',
  },
  ask: {
    label: 'Ask',
    option: 'Ask me, as for the root',
    title: 'Subagents’ risky commands wait for you in the approvals panel, as the root’s do',
  },
  approve: { label: 'Approve', option: 'Approve: run them all', title: 'Subagents’ risky commands run without asking' },
}

/** The job's subagent approval mode as three buttons, one pressed (A cycles them). */
export function SubagentApprovalsControl(props: { mode: SubagentApprovals; disabled: boolean; onChange(mode: SubagentApprovals): void }) {
  return (
    <div
      className="approvals-mode"
      role="group"
      aria-label="Subagents’ risky commands"
      data-testid="subagent-approvals"
      data-mode={props.mode}
    >
      <span className="approvals-mode__label">Subagent commands</span>
      <span className="segmented">
        {subagentApprovalModes.map((mode) => (
          <button
            key={mode}
            type="button"
            className={`${props.mode === mode ? 'active' : ''}${mode === 'approve' ? ' risky' : ''}`}
            data-testid={`subagent-approvals-${mode}`}
            aria-pressed={props.mode === mode}
            disabled={props.disabled}
            title={`${approvalModeText[mode].title} (A cycles)`}
            onClick={() => props.mode !== mode && props.onChange(mode)}
          >
            {approvalModeText[mode].label}
          </button>
        ))}
      </span>
    </div>
  )
}
