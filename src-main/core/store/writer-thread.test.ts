import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { describe, expect, it, vi } from 'vitest'
import type { NewTraceEvent, TraceEvent } from '../trace/events'
import { openDatabase, type SqliteDatabase } from './database'
import { StoreError, UnknownJobError } from './errors'
import { jobOwnersFor } from './job-owners'
import { newOwnerIdentity } from './owner'
import { getAgents, getJobEvents } from './queries'
import { fixedClock, jobId, rootId, sampleJob } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { ThreadedTraceWriter, WriterThreadError, type ThreadedTraceWriterOptions } from './writer-thread'

const workerEntry = fileURLToPath(new URL('./writer-worker.ts', import.meta.url))

function messages(count: number, now = fixedClock(), from = 0): NewTraceEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'message',
    ts: now(),
    job_id: jobId,
    agent_id: rootId,
    parent_id: null,
    depth: 0,
    data: { role: 'assistant', content: `message ${from + index}` },
  }))
}

const rootStart = (ts: string): NewTraceEvent =>
  ({
    type: 'agent.start',
    ts,
    job_id: jobId,
    agent_id: rootId,
    parent_id: null,
    depth: 0,
    data: {
      profile: 'general',
      model: 'scripted',
      label: 'root',
      task: 'look',
      tools: [],
      max_steps: 10,
      context_token_budget: null,
      total_token_budget: null,
    },
  }) as NewTraceEvent

describe('ThreadedTraceWriter', () => {
  const tempDir = useTempDir()
  const writers: ThreadedTraceWriter[] = []
  /**
   * The writer with this thread's connection opened read-only: every write it makes must be the
   * worker thread's (better-sqlite3 refuses a write on a read-only connection).
   */
  const setup = (options: Partial<ThreadedTraceWriterOptions> = {}) => {
    const dbFile = join(tempDir(), 'arbor.db')
    openDatabase(dbFile).close()
    const db: SqliteDatabase = new Database(dbFile, { readonly: true })
    const onError = vi.fn()
    const writer = new ThreadedTraceWriter(db, { dbFile, workerEntry, flushDelayMs: 1000, onError, ...options })
    writers.push(writer)
    writer.createJob(sampleJob())
    const batches: TraceEvent[][] = []
    writer.onCommit((events) => batches.push(events))
    return { db, writer, batches, onError }
  }

  it('commits on its thread: batches of maxBatch in seq order, projections with them, heard with their seqs', () => {
    const { db, writer, batches } = setup({ maxBatch: 1000 })
    const now = fixedClock()
    writer.append(rootStart(now()))
    for (const event of messages(2499, now)) writer.append(event)
    expect(writer.flush().length).toBeGreaterThan(0)
    expect(batches.map((batch) => batch.length)).toEqual([1000, 1000, 500])
    const stored = getJobEvents(db, jobId, 0, 5000)
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 2500 }, (_, index) => index + 1))
    expect(stored).toEqual(batches.flat())
    const [root] = getAgents(db, jobId)
    expect(root).toMatchObject({ id: rootId, label: 'root', status: 'running' })
    writer.close()
    db.close()
  })

  it('beats the owner’s heartbeat on the thread’s connection (this one is read-only), without waiting for it', async () => {
    const owner = newOwnerIdentity()
    const { db, writer } = setup({ owner })
    const at = new Date('2030-01-02T03:04:05.000Z')
    const beaten = () => jobOwnersFor(db).ownerOf(jobId)?.heartbeat_at === at.toISOString()
    writer.heartbeat(at)
    for (let waited = 0; !beaten() && waited < 5000; waited += 10) await sleep(10)
    expect(jobOwnersFor(db).ownerOf(jobId)).toEqual({
      token: owner.token,
      pid: owner.pid,
      host: owner.host,
      heartbeat_at: at.toISOString(),
    })
    writer.close()
    db.close()
  })

  it('sends a batch on its timer and tells the listeners once the thread has committed it', async () => {
    const { db, writer, batches } = setup({ flushDelayMs: 5 })
    for (const event of messages(3)) writer.append(event)
    expect(batches).toHaveLength(0)
    for (let waited = 0; batches.length === 0 && waited < 5000; waited += 10) await sleep(10)
    expect(batches.map((batch) => batch.map((event) => event.seq))).toEqual([[1, 2, 3]])
    writer.close()
    db.close()
  })

  it('checks at append on this thread, and brings the thread’s errors back (a job that already exists)', () => {
    const { db, writer } = setup()
    const [valid] = messages(1)
    expect(() => writer.append({ ...valid!, job_id: 'job-unknown' })).toThrow(UnknownJobError)
    expect(() => writer.createJob(sampleJob())).toThrow(/already exists/)
    expect(writer.pendingCount).toBe(0)
    writer.close()
    expect(() => writer.append(valid!)).toThrow(/closed/)
    db.close()
  })

  it('keeps a batch whose commit failed and commits it with the next flush', () => {
    const { db, writer, batches } = setup()
    const admin = openDatabase(db.name)
    for (const event of messages(3)) writer.append(event)
    admin.exec("CREATE TRIGGER reject_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    expect(() => writer.flush()).toThrow('disk says no')
    expect(writer.pendingCount).toBe(3)
    admin.exec('DROP TRIGGER reject_events')
    expect(writer.flush()).toHaveLength(3)
    expect(batches.map((batch) => batch.map((event) => event.seq))).toEqual([[1, 2, 3]])
    writer.close()
    admin.close()
    db.close()
  })

  it('survives its thread dying between commits: the error is reported, a new thread takes the next events', async () => {
    const { db, writer, onError } = setup()
    for (const event of messages(2)) writer.append(event)
    writer.flush()
    await (writer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
    for (let waited = 0; onError.mock.calls.length === 0 && waited < 5000; waited += 10) await sleep(10)
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(WriterThreadError)
    for (const event of messages(3, fixedClock('2025-03-02T10:00:00.000Z'), 2)) writer.append(event)
    writer.flush()
    expect(getJobEvents(db, jobId).map((event) => event.data.content)).toEqual([0, 1, 2, 3, 4].map((index) => `message ${index}`))
    writer.close()
    db.close()
  })

  it('loses nothing when its thread dies after a commit and before it answered: the commit is heard once, not written twice', () => {
    const { db, writer, batches, onError } = setup()
    for (const event of messages(2)) writer.append(event)
    writer.flush()
    for (const event of messages(3, fixedClock('2025-03-02T10:00:00.000Z'), 2)) writer.append(event)
    writer.crashAfterNextCommit()
    expect(writer.flush().map((event) => event.seq)).toEqual([3, 4, 5])
    expect(onError).toHaveBeenCalledWith(expect.any(WriterThreadError))
    for (const event of messages(1, fixedClock('2025-03-03T10:00:00.000Z'), 5)) writer.append(event)
    writer.flush()
    expect(batches.map((batch) => batch.map((event) => event.seq))).toEqual([[1, 2], [3, 4, 5], [6]])
    expect(getJobEvents(db, jobId).map((event) => event.data.content)).toEqual([0, 1, 2, 3, 4, 5].map((index) => `message ${index}`))
    writer.close()
    db.close()
  })

  it('fails at once, naming the file, when its thread cannot open the database', () => {
    const dbFile = join(tempDir(), 'arbor.db')
    openDatabase(dbFile).close()
    const db = new Database(dbFile, { readonly: true })
    expect(() => new ThreadedTraceWriter(db, { dbFile: join(tempDir(), 'missing', '\0bad'), workerEntry })).toThrow(StoreError)
    db.close()
  })
})
