import type { Migration } from './migration'

/**
 * A job's subagent approval mode (deny, ask or approve) where there was only auto-approve on or
 * off: jobs from before keep what they had, `approve` for auto-approve on and `deny` otherwise.
 * `auto_approve` stays, set exactly when the mode is `approve`.
 */
export const subagentApprovals: Migration = {
  version: 5,
  name: 'subagent-approvals',
  up(db) {
    db.exec(`
      ALTER TABLE jobs ADD COLUMN subagent_approvals TEXT NOT NULL DEFAULT 'deny'
        CHECK (subagent_approvals IN ('deny', 'ask', 'approve'));
      UPDATE jobs SET subagent_approvals = 'approve' WHERE auto_approve = 1;
    `)
  },
}
