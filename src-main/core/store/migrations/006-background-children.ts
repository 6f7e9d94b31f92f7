import type { Migration } from './migration'

/**
 * Which agents are background children (`task` with `background: true`), for the graph's edge:
 * projected from their `agent.start` (or ghost `subagent.*`) events; every agent before is not one.
 */
export const backgroundChildren: Migration = {
  version: 6,
  name: 'background-children',
  up(db) {
    db.exec(`ALTER TABLE agents ADD COLUMN background INTEGER NOT NULL DEFAULT 0 CHECK (background IN (0, 1));`)
  },
}
