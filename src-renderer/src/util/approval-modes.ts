import type { SubagentApprovals } from '@core/trace/statuses'

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
