import type { Migration } from './migration'

/**
 * The caps on an agent's branch (trace/model.ts AgentNode.branch_budget, as JSON), projected
 * from its `control` set_budget events; null when it has none, as every agent before had not.
 */
export const branchBudgets: Migration = {
  version: 8,
  name: 'branch-budgets',
  up(db) {
    db.exec(`ALTER TABLE agents ADD COLUMN branch_budget TEXT;`)
  },
}
