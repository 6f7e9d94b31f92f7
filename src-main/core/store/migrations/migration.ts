import type { Database } from 'better-sqlite3'

/**
 * One schema change. `up` runs inside a transaction that also sets `PRAGMA user_version` to
 * `version`, so a migration is applied completely or not at all. Never edit a migration that
 * has shipped: add the next number instead.
 */
export interface Migration {
  version: number
  name: string
  up(db: Database): void
}
