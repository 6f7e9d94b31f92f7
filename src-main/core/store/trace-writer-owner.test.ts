import os from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { newEvent } from '../trace/events'
import { openDatabase, type SqliteDatabase } from './database'
import { startHeartbeat } from './heartbeat'
import { endInterruptedJobs } from './interrupted'
import { jobOwnersFor } from './job-owners'
import { newOwnerIdentity, type OwnerIdentity } from './owner'
import { getJob, getJobEvents } from './queries'
import { jobId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useSleepers } from './testing/sleeper'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

const control = (value: boolean) =>
  newEvent(
    'control',
    { ts: '2025-03-01T11:00:00.000Z', job_id: jobId, agent_id: null, parent_id: null, depth: null },
    { action: 'auto_approve', target: jobId, value, by: 'user' },
  )

describe('TraceWriter with an owner', () => {
  const tempDir = useTempDir()
  const sleeper = useSleepers()
  const opened: SqliteDatabase[] = []
  afterEach(() => {
    for (const db of opened.splice(0)) db.close()
  })
  const open = (file: string, owner?: OwnerIdentity, errors: unknown[] = []) => {
    const db = openDatabase(file)
    opened.push(db)
    return { db, writer: new TraceWriter(db, { ...(owner ? { owner } : {}), onError: (error) => errors.push(error) }) }
  }

  it('records itself as the owner of the jobs it creates; without an owner the job has none', () => {
    const file = join(tempDir(), 'arbor.db')
    const owner = newOwnerIdentity()
    const { db, writer } = open(file, owner)
    const before = Date.now()
    writer.createJob(sampleJob())
    writer.createJob(sampleJob({ id: 'job-2' }))
    const recorded = jobOwnersFor(db).ownerOf(jobId)!
    expect(recorded).toMatchObject({ token: owner.token, pid: process.pid, host: os.hostname() })
    expect(Date.parse(recorded.heartbeat_at!)).toBeGreaterThanOrEqual(before)
    const plain = open(join(tempDir(), 'plain.db'))
    plain.writer.createJob(sampleJob())
    expect(jobOwnersFor(plain.db).ownerOf(jobId)).toEqual({ token: null, pid: null, host: null, heartbeat_at: null })
  })

  it('never writes into a job another live process runs, but may record a setting on one that ended', async () => {
    const owner = await sleeper()
    const file = join(tempDir(), 'arbor.db')
    const running = open(file, { token: 'owner-token', pid: owner.pid, host: os.hostname() })
    running.writer.createJob(sampleJob())
    for (const event of sampleJobEvents().slice(0, 5)) running.writer.append(event)
    running.writer.flush()

    const errors: unknown[] = []
    const other = open(file, newOwnerIdentity(), errors)
    other.writer.append(control(true))
    expect(other.writer.flush()).toEqual([])
    expect(getJob(other.db, jobId)?.auto_approve).toBe(false)
    expect(getJobEvents(other.db, jobId)).toHaveLength(5)
    expect(String(errors[0])).toContain(`Job ${jobId} is run by another Arbor process: 1 of this process's events`)

    for (const event of sampleJobEvents().slice(5)) running.writer.append(event)
    running.writer.flush()
    expect(getJob(other.db, jobId)?.status).toBe('completed')
    other.writer.append(control(true))
    expect(other.writer.flush()).toHaveLength(1)
    expect(getJob(other.db, jobId)?.auto_approve).toBe(true)
  })

  it('a process that lost its job (stopped past the heartbeat limit) cannot write after the end another process wrote', async () => {
    const file = join(tempDir(), 'arbor.db')
    const errors: unknown[] = []
    const stoppedProcess = await sleeper()
    const stopped = open(file, { token: 'stopped-token', pid: stoppedProcess.pid, host: os.hostname() }, errors)
    stopped.writer.createJob(sampleJob())
    for (const event of sampleJobEvents().slice(0, 12)) stopped.writer.append(event)
    stopped.writer.flush()
    // Its pid is alive, but it has not said so for a minute: a process opening the file takes the job.
    stopped.db.prepare('UPDATE jobs SET heartbeat_at = ?').run(new Date(Date.now() - 60_000).toISOString())

    const sweeper = open(file, newOwnerIdentity())
    expect(endInterruptedJobs(sweeper.db, sweeper.writer)).toEqual([jobId])
    const stored = getJobEvents(sweeper.db, jobId).length

    for (const event of sampleJobEvents().slice(12)) stopped.writer.append(event)
    expect(stopped.writer.flush()).toEqual([])
    expect(getJobEvents(sweeper.db, jobId)).toHaveLength(stored)
    expect(getJob(sweeper.db, jobId)?.status).toBe('interrupted')
    expect(errors).toHaveLength(1)
  })

  it('resumes an interrupted job for one process only: the first takes it over and marks it running, the next is refused', async () => {
    const file = join(tempDir(), 'arbor.db')
    const gone = await sleeper()
    const first = open(file, { token: 'gone-token', pid: gone.pid, host: os.hostname() })
    first.writer.createJob(sampleJob())
    for (const event of sampleJobEvents().slice(0, 12)) first.writer.append(event)
    first.writer.flush()
    await gone.kill()
    const a = open(file, newOwnerIdentity())
    const b = open(file, newOwnerIdentity())
    expect(endInterruptedJobs(a.db, a.writer)).toEqual([jobId])
    expect(getJob(a.db, jobId)?.status).toBe('interrupted')

    a.writer.reopenJob(jobId, { interrupted: true })
    expect(getJob(b.db, jobId)?.status).toBe('running')
    expect(jobOwnersFor(b.db).ownerOf(jobId)?.token).toBe(a.writer.owner?.token)
    expect(() => b.writer.reopenJob(jobId, { interrupted: true })).toThrow(`Job ${jobId} cannot be resumed: it is not interrupted`)
    // The process that took it writes into it; the other cannot.
    a.writer.append(control(true))
    expect(a.writer.flush()).toHaveLength(1)
    b.writer.append(control(false))
    expect(b.writer.flush()).toEqual([])
  })

  it('resumes only an interrupted job: a completed one is refused (a follow-up reopens it instead)', () => {
    const { writer } = open(join(tempDir(), 'arbor.db'), newOwnerIdentity())
    writer.createJob(sampleJob({ status: 'completed' }))
    expect(() => writer.reopenJob(jobId, { interrupted: true })).toThrow('it is not interrupted')
    expect(() => writer.reopenJob(jobId)).not.toThrow()
  })
})

describe('startHeartbeat', () => {
  const tempDir = useTempDir()
  const sleeper = useSleepers()

  it('keeps the running jobs of its owner fresh, not ended ones, and stops on stop()', async () => {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { owner: newOwnerIdentity() })
    writer.createJob(sampleJob())
    writer.createJob(sampleJob({ id: 'job-ended', status: 'completed' }))
    const stamp = '2025-01-01T00:00:00.000Z'
    db.prepare('UPDATE jobs SET heartbeat_at = ?').run(stamp)
    const heartbeat = startHeartbeat(db, writer, { intervalMs: 20 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    heartbeat.stop()
    const owners = jobOwnersFor(db)
    const fresh = owners.ownerOf(jobId)!.heartbeat_at!
    expect(Date.now() - Date.parse(fresh)).toBeLessThan(5_000)
    expect(owners.ownerOf('job-ended')!.heartbeat_at).toBe(stamp)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(owners.ownerOf(jobId)!.heartbeat_at).toBe(fresh)
    writer.close()
    db.close()
  })

  it('ends, on its next tick, a job whose owner process exited after this one opened the file', async () => {
    const owner = await sleeper()
    const file = join(tempDir(), 'arbor.db')
    const ownerDb = openDatabase(file)
    const ownerWriter = new TraceWriter(ownerDb, { owner: { token: 'owner-token', pid: owner.pid, host: os.hostname() } })
    ownerWriter.createJob(sampleJob())
    for (const event of sampleJobEvents().slice(0, 12)) ownerWriter.append(event)
    ownerWriter.flush()

    const db = openDatabase(file)
    const writer = new TraceWriter(db, { owner: newOwnerIdentity() })
    const heard: string[] = []
    writer.onCommit((events) => heard.push(...events.map((event) => event.type)))
    const heartbeat = startHeartbeat(db, writer, { intervalMs: 60_000 })
    heartbeat.beat()
    expect(getJob(db, jobId)?.status).toBe('running')
    await owner.kill()
    heartbeat.beat()
    heartbeat.stop()
    expect(getJob(db, jobId)?.status).toBe('interrupted')
    expect(heard).toEqual(['agent.end', 'agent.end', 'job.end'])
    writer.close()
    db.close()
    ownerDb.close()
  })
})
