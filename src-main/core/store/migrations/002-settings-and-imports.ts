import type { Migration } from './migration'

/**
 * What the app remembers besides traces: projects opened (most recent first) with the last
 * new-job settings used in each, per-provider settings (never keys: those live in the key
 * store), and the user's edits to the price table. Imported traces are marked read-only and
 * keep each event's original `seq`, so exporting one again gives the same lines.
 */
export const settingsAndImports: Migration = {
  version: 2,
  name: 'settings-and-imports',
  up(db) {
    db.exec(`
      CREATE TABLE projects (
        path          TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        opened_at     TEXT NOT NULL,
        job_defaults  TEXT
      );
      CREATE INDEX projects_by_opened ON projects (opened_at);

      CREATE TABLE provider_settings (
        provider     TEXT PRIMARY KEY,
        base_url     TEXT,
        model        TEXT NOT NULL,
        light_model  TEXT
      );

      CREATE TABLE prices (
        model        TEXT PRIMARY KEY,
        input        REAL NOT NULL,
        output       REAL NOT NULL,
        cache_read   REAL NOT NULL,
        cache_write  REAL NOT NULL,
        updated_at   TEXT NOT NULL
      );

      ALTER TABLE jobs ADD COLUMN imported INTEGER NOT NULL DEFAULT 0 CHECK (imported IN (0, 1));
      ALTER TABLE events ADD COLUMN source_seq INTEGER;
    `)
  },
}
