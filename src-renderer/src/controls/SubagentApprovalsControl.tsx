import { subagentApprovalModes, type SubagentApprovals } from '@core/trace/statuses'
import { approvalModeText } from '../util/approval-modes'

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
