import type { Migration } from './migration'

/**
 * Single values the app remembers, by name (no key, ever: keys live in the key store): the cap on
 * concurrent model calls per API endpoint (`max_model_calls`, Settings ▸ Providers) first.
 */
export const appValues: Migration = {
  version: 9,
  name: 'app-values',
  up(db) {
    db.exec(`
      CREATE TABLE app_values (
        name        TEXT PRIMARY KEY,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
    `)
  },
}
