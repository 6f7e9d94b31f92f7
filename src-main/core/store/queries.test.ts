import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase, type SqliteDatabase } from './database'
import { getAgent, getEvents, getJob, getJobEvents, getJobUsage, listJobs, rootAnswer } from './queries'
import { childId, childUsage, jobId, rootId, rootUsage, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

describe('queries', () => {
  const tempDir = useTempDir()

  function withJobs(): { db: SqliteDatabase; writer: TraceWriter } {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob({ id: 'job-old', created_at: '2025-01-01T00:00:00.000Z' }))
    writer.createJob(sampleJob({ id: 'job-other', project: '/projects/other', created_at: '2025-02-01T00:00:00.000Z' }))
    writer.createJob(sampleJob())
    for (const event of sampleJobEvents()) writer.append(event)
    writer.flush()
    return { db, writer }
  }

  it('lists jobs newest first, optionally for one project', () => {
    const { db } = withJobs()
    expect(listJobs(db).map((job) => job.id)).toEqual([jobId, 'job-other', 'job-old'])
    expect(listJobs(db, '/projects/demo').map((job) => job.id)).toEqual([jobId, 'job-old'])
    expect(listJobs(db, '/projects/none')).toEqual([])
    expect(getJob(db, 'job-other')).toEqual(
      sampleJob({ id: 'job-other', project: '/projects/other', created_at: '2025-02-01T00:00:00.000Z' }),
    )
    expect(getJob(db, 'missing')).toBeUndefined()
    db.close()
  })

  it("reads how a job's root ended from its row, for a job.end written before it carried the reason", () => {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    const events = sampleJobEvents()
    const rootEnd = events.findIndex((event) => event.type === 'agent.end' && event.agent_id === rootId)
    for (const event of events.slice(0, rootEnd)) writer.append(event)
    writer.flush()
    expect(getJob(db, jobId)?.end_reason).toBeUndefined()
    for (const event of events.slice(rootEnd)) {
      const killed = event.type === 'agent.end' && event.agent_id === rootId
      // A root the user killed; its job.end (as the sample's) says only `cancelled`.
      if (killed) writer.append({ ...event, data: { ...event.data, status: 'killed', terminal_reason: 'killed' } } as typeof event)
      else if (event.type === 'job.end') writer.append({ ...event, data: { ...event.data, status: 'cancelled' } } as typeof event)
      else writer.append(event)
    }
    writer.flush()
    expect(getJob(db, jobId)).toMatchObject({ status: 'cancelled', end_reason: 'killed' })
    expect(listJobs(db)[0]).toMatchObject({ id: jobId, end_reason: 'killed' })
    db.close()
  })

  it("pages through one agent's events after a seq", () => {
    const { db } = withJobs()
    const all = getEvents(db, rootId)
    expect(all.every((event) => event.agent_id === rootId)).toBe(true)
    expect(all.map((event) => event.type)).toContain('subagent.end')
    const first = getEvents(db, rootId, 0, 3)
    const rest = getEvents(db, rootId, first.at(-1)!.seq)
    expect([...first, ...rest]).toEqual(all)
    expect(getEvents(db, childId).map((event) => event.type)).toEqual(['agent.start', 'tool.call', 'tool.result', 'llm.call', 'agent.end'])
    expect(getJobEvents(db, jobId)).toHaveLength(sampleJobEvents().length)
    expect(getAgent(db, 'missing')).toBeUndefined()
    db.close()
  })

  it("reads the root agent's answer, not a child's: none while the root runs, JSON for a structured result", () => {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    const events = sampleJobEvents()
    const rootEnd = events.findIndex((event) => event.type === 'agent.end' && event.agent_id === rootId)
    // Until the root ends only a child has answered: the job has no answer yet.
    for (const event of events.slice(0, rootEnd)) writer.append(event)
    writer.flush()
    expect(rootAnswer(db, jobId)).toBeNull()
    for (const event of events.slice(rootEnd)) writer.append(event)
    writer.flush()
    expect(rootAnswer(db, jobId)).toBe('A small project')
    expect(rootAnswer(db, 'missing')).toBeNull()

    db.close()

    // Another database, the same job with a structured answer.
    const other = openDatabase(join(tempDir(), 'structured.db'))
    const otherWriter = new TraceWriter(other, { flushDelayMs: 1000 })
    otherWriter.createJob(sampleJob())
    const structured = { status: 'completed', findings: ['a'] }
    for (const event of sampleJobEvents()) {
      const isRootEnd = event.type === 'agent.end' && event.agent_id === rootId
      otherWriter.append(isRootEnd ? ({ ...event, data: { ...event.data, result: structured } } as typeof event) : event)
    }
    otherWriter.flush()
    expect(rootAnswer(other, jobId)).toBe(JSON.stringify(structured, null, 2))
    other.close()
  })

  it('sums usage over agents', () => {
    const { db } = withJobs()
    const { usage, cost_usd } = getJobUsage(db, jobId)
    expect(usage.input_tokens).toBe(rootUsage.input_tokens + childUsage.input_tokens)
    expect(cost_usd).toBe(0.875)
    expect(getJobUsage(db, 'job-old')).toEqual({ usage: sampleJob().usage, cost_usd: null })
    db.close()
  })
})
