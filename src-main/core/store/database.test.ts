import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { migrateDatabase, openDatabase, schemaVersion } from './database'
import { DatabaseTooNewError } from './errors'
import { latestSchemaVersion, migrations, type Migration } from './migrations/index'
import { useTempDir } from './testing/temp-dir'

const tableNames = (db: Database.Database): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name)

const indexNames = (db: Database.Database): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name)

describe('openDatabase', () => {
  const tempDir = useTempDir()

  it('creates the schema in an empty file and ends at the latest version', () => {
    const db = openDatabase(join(tempDir(), 'nested', 'arbor.db'))
    expect(schemaVersion(db)).toBe(latestSchemaVersion)
    expect(tableNames(db)).toEqual([
      'agents',
      'app_values',
      'events',
      'file_contents',
      'jobs',
      'prices',
      'projects',
      'provider_settings',
      'trace_export',
    ])
    expect(indexNames(db)).toEqual(expect.arrayContaining(['events_by_job', 'events_by_agent', 'agents_by_job', 'jobs_by_project']))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000)
    db.close()
  })

  it('gives jobs from before the three subagent approval modes the one their auto-approve switch meant', () => {
    const file = join(tempDir(), 'arbor.db')
    const old = new Database(file)
    migrateDatabase(old, migrations.slice(0, 4))
    const insert = old.prepare(
      `INSERT INTO jobs (id, project, task, settings, status, created_at, auto_approve, spawn_paused, usage)
       VALUES (?, '/p', 't', '{}', 'completed', '2025-01-01T00:00:00.000Z', ?, 0, '{}')`,
    )
    insert.run('job-on', 1)
    insert.run('job-off', 0)
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT id, subagent_approvals FROM jobs ORDER BY id').all()).toEqual([
      { id: 'job-off', subagent_approvals: 'deny' },
      { id: 'job-on', subagent_approvals: 'approve' },
    ])
    expect(() => db.prepare("UPDATE jobs SET subagent_approvals = 'sometimes'").run()).toThrow(/CHECK/)
    db.close()
  })

  it('reopening an up-to-date file changes nothing', () => {
    const file = join(tempDir(), 'arbor.db')
    openDatabase(file).close()
    const db = openDatabase(file)
    const before = db.prepare('SELECT sql FROM sqlite_master ORDER BY name').all()
    expect(migrateDatabase(db)).toBe(latestSchemaVersion)
    expect(db.prepare('SELECT sql FROM sqlite_master ORDER BY name').all()).toEqual(before)
    db.close()
  })

  it('refuses a database from a newer version, naming both versions', () => {
    const file = join(tempDir(), 'future.db')
    const raw = new Database(file)
    raw.pragma(`user_version = ${latestSchemaVersion + 41}`)
    raw.close()
    let caught: unknown
    try {
      openDatabase(file)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(DatabaseTooNewError)
    expect((caught as Error).message).toContain(`schema version ${latestSchemaVersion + 41}`)
    expect((caught as Error).message).toContain(`versions up to ${latestSchemaVersion}`)
    expect((caught as Error).message).toContain(file)
  })

  it('reports a file that is not a database clearly', async () => {
    const file = join(tempDir(), 'not-a.db')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(file, 'this is not sqlite, just some text that is long enough to look like a header'.repeat(20))
    expect(() => openDatabase(file)).toThrow(/Cannot open database .*not-a\.db/)
  })
})

describe('migrateDatabase', () => {
  const tempDir = useTempDir()

  it('applies each migration in its own transaction and rolls back a failing one', () => {
    const db = new Database(join(tempDir(), 'partial.db'))
    const failing: Migration = {
      version: migrations.length + 1,
      name: 'broken',
      up(database) {
        database.exec('CREATE TABLE half_done (id INTEGER)')
        throw new Error('boom')
      },
    }
    expect(() => migrateDatabase(db, [...migrations, failing])).toThrow('boom')
    expect(schemaVersion(db)).toBe(latestSchemaVersion)
    expect(tableNames(db)).not.toContain('half_done')
    db.close()
  })
})
