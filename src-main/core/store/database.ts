import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { DatabaseTooNewError, StoreError } from './errors'
import { migrations as allMigrations, type Migration } from './migrations/index'

export type SqliteDatabase = Database.Database

export interface OpenDatabaseOptions {
  /**
   * Path to a better_sqlite3.node built for another ABI: the Electron app points this at its
   * Electron build. Default: the build Node loads from node_modules.
   */
  nativeBinding?: string
  /** How long a write waits for another connection's lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number
}

/**
 * Opens (creating if needed) Arbor's SQLite database and brings its schema up to date.
 * WAL lets readers (queries, export) run while the writer commits; `synchronous = NORMAL` is
 * the usual WAL pairing: durable against crashes of the app, may lose the last commits on a
 * power cut, never corrupts. The WAL is checkpointed into the file every 10,000 pages (40 MB)
 * rather than SQLite's 1,000: the writer commits a batch at a time, and each batch rewrites the
 * same index leaves and agent rows, which a checkpoint copies once however often they were
 * rewritten since the last; at 1,000 pages checkpoints were about a fifth of the writer's CPU.
 * A file from a newer Arbor is refused with DatabaseTooNewError.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (file !== ':memory:' && file !== '') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('wal_autocheckpoint = 10000')
    db.pragma('foreign_keys = ON')
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`)
    migrateDatabase(db)
    return db
  } catch (error) {
    db.close()
    if (error instanceof StoreError) throw error
    throw new StoreError(`Cannot open database ${file}: ${(error as Error).message}`, { cause: error })
  }
}

export const schemaVersion = (db: SqliteDatabase): number => db.pragma('user_version', { simple: true }) as number

/**
 * Applies every migration newer than the file's `PRAGMA user_version`, each in its own
 * IMMEDIATE transaction that also bumps user_version (so two processes opening the same file
 * at once cannot both apply it). Returns the version the file ends at.
 */
export function migrateDatabase(db: SqliteDatabase, migrations: readonly Migration[] = allMigrations): number {
  const latest = migrations.length
  const found = schemaVersion(db)
  if (found > latest) throw new DatabaseTooNewError(db.name, found, latest)
  for (const migration of migrations) {
    if (migration.version <= found) continue
    db.transaction(() => {
      const current = schemaVersion(db)
      if (current >= migration.version) return
      if (current !== migration.version - 1) {
        throw new StoreError(`Database ${db.name} is at version ${current}, cannot apply migration ${migration.version}`)
      }
      migration.up(db)
      db.pragma(`user_version = ${migration.version}`)
    }).immediate()
  }
  return schemaVersion(db)
}
