import os from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateDatabase, openDatabase, schemaVersion, type SqliteDatabase } from './database'
import { endInterruptedJobs } from './interrupted'
import { jobOwnersFor } from './job-owners'
import { migrations } from './migrations/index'
import { newOwnerIdentity, type OwnerIdentity } from './owner'
import { BatchProjector } from './projector'
import { getAgent, getAgents, getEvents, getJob, getJobEvents } from './queries'
import { jobColumns, jobToRow } from './rows'
import { childId, jobId, rootId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useSleepers } from './testing/sleeper'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

/** The run stops after the child's first llm.call: root and child are both still running. */
const unfinishedEvents = () => sampleJobEvents().slice(0, 12)

const opened: SqliteDatabase[] = []

/** One connection per simulated process, as two Arbor processes on one file would have. */
function openAs(file: string, owner?: OwnerIdentity): { db: SqliteDatabase; writer: TraceWriter } {
  const db = openDatabase(file)
  opened.push(db)
  return { db, writer: new TraceWriter(db, owner ? { owner } : {}) }
}

function startUnfinishedJob(writer: TraceWriter): void {
  writer.createJob(sampleJob())
  for (const event of unfinishedEvents()) writer.append(event)
  writer.flush()
}

const jobEnds = (db: SqliteDatabase) => getJobEvents(db, jobId).filter((event) => event.type === 'job.end')

describe('endInterruptedJobs', () => {
  const tempDir = useTempDir()
  const sleeper = useSleepers()
  afterEach(() => {
    for (const db of opened.splice(0)) db.close()
  })

  it('ends a job a previous run left running, in the trace, and leaves finished jobs alone', () => {
    const file = join(tempDir(), 'arbor.db')
    const { db, writer } = openAs(file)
    writer.createJob(sampleJob({ id: 'job-done', created_at: '2025-01-01T00:00:00.000Z' }))
    for (const event of sampleJobEvents(sampleJob({ id: 'job-done' }), undefined, { root: 'done-root', child: 'done-child' }))
      writer.append(event)
    startUnfinishedJob(writer)
    writer.close()
    db.close()

    const reopened = openDatabase(file)
    const restarted = new TraceWriter(reopened)
    const now = () => new Date('2025-03-02T00:00:00.000Z')
    expect(endInterruptedJobs(reopened, restarted, { now })).toEqual([jobId])
    expect(getJob(reopened, jobId)).toMatchObject({ status: 'interrupted', ended_at: '2025-03-02T00:00:00.000Z' })
    expect(getJob(reopened, 'job-done')?.status).toBe('completed')
    expect(getAgent(reopened, rootId)).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
    expect(getAgent(reopened, childId)).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
    // The job's usage is what its agents had reached, and the trace says so.
    const jobEnd = getJobEvents(reopened, jobId).at(-1)!
    expect(jobEnd.type).toBe('job.end')
    const childUsage = getAgent(reopened, childId)!.usage
    const rootUsage = getAgent(reopened, rootId)!.usage
    expect((jobEnd.data.usage as { input_tokens: number }).input_tokens).toBe(childUsage.input_tokens + rootUsage.input_tokens)
    expect(getEvents(reopened, childId).at(-1)?.type).toBe('agent.end')
    // A child ends before its parent, as in a clean end.
    const ends = getJobEvents(reopened, jobId)
      .filter((event) => event.type === 'agent.end')
      .map((event) => event.agent_id)
    expect(ends).toEqual([childId, rootId])
    // Each marked as the sweep's, with what it was doing: what a resume reads to continue it.
    expect(getEvents(reopened, childId).at(-1)?.data).toMatchObject({ interrupted: true, interrupted_status: 'running' })
    expect(endInterruptedJobs(reopened, restarted, { now })).toEqual([])
    restarted.close()
    reopened.close()
  })

  it('leaves the job of another live process alone, and ends it once that process is gone', async () => {
    const owner = await sleeper()
    const file = join(tempDir(), 'arbor.db')
    const running = openAs(file, { token: 'owner-token', pid: owner.pid, host: os.hostname() })
    startUnfinishedJob(running.writer)

    const other = openAs(file, newOwnerIdentity())
    expect(endInterruptedJobs(other.db, other.writer)).toEqual([])
    expect(getJob(other.db, jobId)?.status).toBe('running')
    expect(getJobEvents(other.db, jobId)).toHaveLength(unfinishedEvents().length)
    expect(jobOwnersFor(other.db).ownerOf(jobId)).toMatchObject({ token: 'owner-token', pid: owner.pid })

    await owner.kill()
    expect(endInterruptedJobs(other.db, other.writer)).toEqual([jobId])
    expect(getJob(other.db, jobId)?.status).toBe('interrupted')
    expect(getAgents(other.db, jobId).map((agent) => agent.status)).toEqual(['failed', 'failed'])
  })

  it('at opening, a stale heartbeat ends the job even if its pid is alive (a reused pid); the periodic sweep waits for the pid', async () => {
    const stranger = await sleeper()
    const file = join(tempDir(), 'arbor.db')
    const running = openAs(file, { token: 'owner-token', pid: stranger.pid, host: os.hostname() })
    startUnfinishedJob(running.writer)
    running.db.prepare('UPDATE jobs SET heartbeat_at = ?').run(new Date(Date.now() - 60_000).toISOString())

    const other = openAs(file, newOwnerIdentity())
    expect(endInterruptedJobs(other.db, other.writer, { heartbeatCounts: false })).toEqual([])
    expect(endInterruptedJobs(other.db, other.writer, { staleAfterMs: 120_000 })).toEqual([])
    expect(endInterruptedJobs(other.db, other.writer)).toEqual([jobId])
    expect(jobEnds(other.db)).toHaveLength(1)
  })

  it('of two processes ending the same orphan at once, one wins and the job ends once', () => {
    const file = join(tempDir(), 'arbor.db')
    startUnfinishedJob(openAs(file).writer)
    const first = openAs(file, newOwnerIdentity())
    const secondIdentity = newOwnerIdentity()
    const second = openAs(file, secondIdentity)
    // The second has read the orphan's row when the first takes it over.
    const seen = jobOwnersFor(second.db).running()
    expect(seen.map((job) => job.job_id)).toEqual([jobId])
    expect(endInterruptedJobs(first.db, first.writer)).toEqual([jobId])
    expect(jobOwnersFor(second.db).takeOver(jobId, seen[0]!, secondIdentity, new Date())).toBe(false)
    expect(endInterruptedJobs(second.db, second.writer)).toEqual([])
    expect(jobEnds(second.db)).toHaveLength(1)
  })

  it('opens a database from version 2: a job it left running has no owner and is ended as interrupted', () => {
    const file = join(tempDir(), 'arbor.db')
    const old = new Database(file)
    migrateDatabase(old, migrations)
    writeAsVersion2(old)
    old.close()

    const { db, writer } = openAs(file, newOwnerIdentity())
    expect(schemaVersion(db)).toBe(migrations.length)
    expect(jobOwnersFor(db).ownerOf(jobId)).toEqual({ token: null, pid: null, host: null, heartbeat_at: null })
    expect(endInterruptedJobs(db, writer)).toEqual([jobId])
    expect(getJob(db, jobId)?.status).toBe('interrupted')
    expect(getAgents(db, jobId).every((agent) => agent.status === 'failed')).toBe(true)
  })
})

/**
 * A running job's rows as Arbor with schema 2 stored them: the job row, then its events
 * projected, written by today's code; then what versions 3 on added is taken away again.
 */
function writeAsVersion2(db: SqliteDatabase): void {
  db.prepare(
    `INSERT INTO jobs (${jobColumns}) VALUES (${jobColumns
      .split(', ')
      .map((name) => '@' + name)
      .join(', ')})`,
  ).run(jobToRow(sampleJob()))
  const insert = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const projector = new BatchProjector(db)
  db.transaction(() => {
    for (const event of unfinishedEvents()) {
      const info = insert.run(event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data))
      projector.apply({ ...event, seq: Number(info.lastInsertRowid) })
    }
    projector.write()
  })()
  db.exec(`
    ALTER TABLE agents DROP COLUMN branch_budget;
    ALTER TABLE agents DROP COLUMN wait;
    ALTER TABLE agents DROP COLUMN background;
    ALTER TABLE jobs DROP COLUMN subagent_approvals;
    ALTER TABLE jobs DROP COLUMN owner_token;
    ALTER TABLE jobs DROP COLUMN owner_pid;
    ALTER TABLE jobs DROP COLUMN owner_host;
    ALTER TABLE jobs DROP COLUMN heartbeat_at;
    DROP TABLE trace_export;
    DROP TABLE app_values;
    DROP TABLE file_contents;
    PRAGMA user_version = 2;
  `)
}
