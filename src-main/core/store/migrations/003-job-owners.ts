import type { Migration } from './migration'

/**
 * Which Arbor process runs each job (store/owner.ts): a random token per process, its pid and
 * host, and the last time it said it was alive. Jobs from before this version have no owner;
 * one still `running` is taken for a job whose process is gone and is ended as interrupted
 * when the file is next opened, as before.
 */
export const jobOwners: Migration = {
  version: 3,
  name: 'job-owners',
  up(db) {
    db.exec(`
      ALTER TABLE jobs ADD COLUMN owner_token TEXT;
      ALTER TABLE jobs ADD COLUMN owner_pid INTEGER;
      ALTER TABLE jobs ADD COLUMN owner_host TEXT;
      ALTER TABLE jobs ADD COLUMN heartbeat_at TEXT;
    `)
  },
}
