import type { Migration } from './migration'

/**
 * The contents of the file versions `file.change` events name (by SHA-256 hex of the bytes),
 * each stored once however many changes name it. Files over the cap (trace/file-changes.ts) have
 * no row. Rows are never updated; a hash is its content.
 */
export const fileContents: Migration = {
  version: 10,
  name: 'file-contents',
  up(db) {
    db.exec(`
      CREATE TABLE file_contents (
        hash     TEXT PRIMARY KEY,
        size     INTEGER NOT NULL,
        content  BLOB NOT NULL
      ) WITHOUT ROWID;
    `)
  },
}
