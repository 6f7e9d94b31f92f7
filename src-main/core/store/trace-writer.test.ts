import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, vi } from 'vitest'
import type { NewTraceEvent, TraceEvent } from '../trace/events'
import { openDatabase, type SqliteDatabase } from './database'
import { InvalidEventError, StoreError, UnknownJobError } from './errors'
import { getEvents, getJobEvents } from './queries'
import { fixedClock, jobId, jobUsage, rootId, sampleJob } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter, type TraceWriterOptions } from './trace-writer'

function messages(count: number, now = fixedClock()): NewTraceEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'message',
    ts: now(),
    job_id: jobId,
    agent_id: rootId,
    parent_id: null,
    depth: 0,
    data: { role: 'assistant', content: `message ${index}` },
  }))
}

describe('TraceWriter', () => {
  const tempDir = useTempDir()
  const setup = (
    options: TraceWriterOptions = {},
    file = 'arbor.db',
  ): { db: SqliteDatabase; writer: TraceWriter; batches: TraceEvent[][] } => {
    const db = openDatabase(join(tempDir(), file))
    const writer = new TraceWriter(db, { flushDelayMs: 1000, ...options })
    writer.createJob(sampleJob())
    const batches: TraceEvent[][] = []
    writer.onCommit((events) => batches.push(events))
    return { db, writer, batches }
  }

  it('commits 1,000 appended events in one transaction, in seq order', () => {
    const { db, writer, batches } = setup({ maxBatch: 10_000 })
    const transaction = vi.spyOn(db, 'transaction')
    for (const event of messages(1000)) writer.append(event)
    expect(batches).toHaveLength(0)
    expect(writer.pendingCount).toBe(1000)
    writer.flush()
    expect(batches).toHaveLength(1)
    expect(transaction).not.toHaveBeenCalled() // prepared once, in the constructor
    const committed = batches[0]!
    expect(committed).toHaveLength(1000)
    expect(committed.map((event) => event.seq)).toEqual(Array.from({ length: 1000 }, (_, index) => index + 1))
    const stored = getJobEvents(db, jobId, 0, 5000)
    expect(stored).toEqual(committed)
    expect(stored.map((event) => event.data.content)).toEqual(Array.from({ length: 1000 }, (_, index) => `message ${index}`))
    db.close()
  })

  it('flushes as soon as a batch is full', () => {
    const { db, writer, batches } = setup({ maxBatch: 1000 })
    for (const event of messages(2500)) writer.append(event)
    expect(batches.map((batch) => batch.length)).toEqual([1000, 1000])
    writer.close()
    expect(batches.map((batch) => batch.length)).toEqual([1000, 1000, 500])
    expect(getJobEvents(db, jobId, 0, 5000).map((event) => event.seq)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1))
    db.close()
  })

  it('flushes on a timer: setImmediate when the delay is 0, a short timeout otherwise', async () => {
    const immediate = setup({ flushDelayMs: 0 })
    for (const event of messages(3)) immediate.writer.append(event)
    await new Promise((resolve) => setImmediate(resolve))
    expect(immediate.batches.map((batch) => batch.length)).toEqual([3])
    immediate.db.close()

    const timed = setup({ flushDelayMs: 15 }, 'timed.db')
    for (const event of messages(2)) timed.writer.append(event)
    await sleep(1)
    expect(timed.batches).toHaveLength(0)
    await sleep(40)
    expect(timed.batches.map((batch) => batch.length)).toEqual([2])
    timed.db.close()
  })

  it('keeps going when a commit listener throws', () => {
    const onError = vi.fn()
    const { db, writer, batches } = setup({ onError })
    writer.onCommit(() => {
      throw new Error('listener failed')
    })
    const after: number[] = []
    writer.onCommit((events) => after.push(events.length))
    for (const event of messages(2)) writer.append(event)
    writer.flush()
    for (const event of messages(3)) writer.append(event)
    writer.flush()
    expect(batches.map((batch) => batch.length)).toEqual([2, 3])
    expect(after).toEqual([2, 3])
    expect(onError).toHaveBeenCalledTimes(2)
    expect(getJobEvents(db, jobId)).toHaveLength(5)
    db.close()
  })

  it('delivers batches in commit order even when a listener flushes again', () => {
    const { db, writer } = setup()
    const seen: number[][] = []
    let nested = false
    writer.onCommit(() => {
      if (nested) return
      nested = true
      for (const event of messages(1)) writer.append(event)
      writer.flush()
    })
    writer.onCommit((events) => seen.push(events.map((event) => event.seq)))
    for (const event of messages(2)) writer.append(event)
    writer.flush()
    expect(seen).toEqual([[1, 2], [3]])
    db.close()
  })

  it('refuses malformed events and events of unknown jobs at append', () => {
    const { db, writer } = setup()
    const [valid] = messages(1)
    expect(() => writer.append({ ...valid!, job_id: 'job-unknown' })).toThrow(UnknownJobError)
    expect(() => writer.append({ ...valid!, type: 'nonsense' } as unknown as NewTraceEvent)).toThrow(InvalidEventError)
    expect(() => writer.append({ ...valid!, depth: -1 })).toThrow(/depth/)
    const circular: Record<string, unknown> = {}
    circular.self = circular
    expect(() => writer.append({ ...valid!, data: circular } as NewTraceEvent)).toThrow(/not serialisable/)
    writer.createJob(sampleJob({ id: 'job-2' }))
    writer.append(valid!)
    expect(() => writer.append({ ...valid!, job_id: 'job-2' })).toThrow(`agent ${rootId} belongs to job ${jobId}, not job-2`)
    expect(() =>
      writer.append({ ...valid!, job_id: 'job-2', agent_id: 'agent-2', data: { child_agent_id: rootId } } as NewTraceEvent),
    ).toThrow(/belongs to job/)
    expect(writer.pendingCount).toBe(1)
    db.close()
  })

  it('snapshots event data at append', () => {
    const { db, writer } = setup()
    const [event] = messages(1)
    writer.append(event!)
    event!.data.content = 'changed after append'
    writer.flush()
    expect(getEvents(db, rootId)[0]!.data.content).toBe('message 0')
    db.close()
  })

  it('refuses a second job with the same id, and appends after close', () => {
    const { db, writer } = setup()
    expect(() => writer.createJob(sampleJob())).toThrow(StoreError)
    for (const event of messages(2)) writer.append(event)
    writer.close()
    expect(getJobEvents(db, jobId)).toHaveLength(2)
    expect(() => writer.append(messages(1)[0]!)).toThrow(/closed/)
    db.close()
  })

  it('writes only the job columns its events change, and never reads the others', () => {
    const { db, writer } = setup()
    // Settings that are not JSON: a batch that parsed them would fail, one that rewrote them would restore them.
    const fixed = { project: '/elsewhere', task: 'edited', settings: 'not JSON', created_at: '2024-01-01T00:00:00.000Z' }
    db.prepare('UPDATE jobs SET project = @project, task = @task, settings = @settings, created_at = @created_at WHERE id = @id').run({
      ...fixed,
      id: jobId,
    })
    const now = fixedClock('2025-03-01T11:00:00.000Z')
    // Partial control data on purpose: the projection must cope with what an old trace may hold.
    const jobEvent = (type: NewTraceEvent['type'], data: Record<string, unknown>) =>
      ({ type, ts: now(), job_id: jobId, agent_id: null, parent_id: null, depth: null, data }) as NewTraceEvent
    writer.append(jobEvent('control', { action: 'auto_approve', value: true }))
    writer.append(jobEvent('control', { action: 'pause', target: jobId }))
    writer.append(jobEvent('job.end', { status: 'completed', usage: jobUsage, cost_usd: 0.875 }))
    writer.flush()
    const row = db
      .prepare(
        'SELECT project, task, settings, created_at, status, ended_at, auto_approve, spawn_paused, usage, cost_usd FROM jobs WHERE id = ?',
      )
      .get(jobId)
    expect(row).toEqual({
      ...fixed,
      status: 'completed',
      ended_at: '2025-03-01T11:00:02.000Z',
      auto_approve: 1,
      spawn_paused: 1,
      usage: JSON.stringify(jobUsage),
      cost_usd: 0.875,
    })
    db.close()
  })

  it('keeps a batch queued when its commit fails, and retries it on the next flush', () => {
    const { db, writer, batches } = setup()
    for (const event of messages(3)) writer.append(event)
    db.exec("CREATE TRIGGER reject_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    expect(() => writer.flush()).toThrow('disk says no')
    expect(writer.pendingCount).toBe(3)
    expect(getJobEvents(db, jobId)).toHaveLength(0)
    db.exec('DROP TRIGGER reject_events')
    expect(writer.flush()).toHaveLength(3)
    expect(batches.map((batch) => batch.map((event) => event.seq))).toEqual([[1, 2, 3]])
    db.close()
  })
})
