import type { Migration } from './migration'

/**
 * What a waiting agent waits for (trace/model.ts AgentWait, as JSON), projected from its
 * `agent.wait` events; null when it does not wait, as every agent before did not.
 */
export const agentWaits: Migration = {
  version: 7,
  name: 'agent-waits',
  up(db) {
    db.exec(`ALTER TABLE agents ADD COLUMN wait TEXT;`)
  },
}
