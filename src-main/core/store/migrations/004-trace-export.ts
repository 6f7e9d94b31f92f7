import type { Migration } from './migration'

/**
 * Where finished jobs' traces are sent (OTLP/HTTP, core/otlp/auto-export.ts): one row with the
 * endpoint, whether sending is on, and the names of the headers sent. Header values are secrets
 * and live in the key store beside API keys, never here.
 */
export const traceExport: Migration = {
  version: 4,
  name: 'trace-export',
  up(db) {
    db.exec(`
      CREATE TABLE trace_export (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        endpoint      TEXT NOT NULL,
        enabled       INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        header_names  TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      );
    `)
  },
}
