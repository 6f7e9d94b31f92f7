import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from './database'
import { endInterruptedJobs } from './interrupted'
import { getAgent, getEvents, getJob, getJobEvents } from './queries'
import { childId, jobId, rootId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

describe('endInterruptedJobs', () => {
  const tempDir = useTempDir()

  it('ends a job a previous run left running, in the trace, and leaves finished jobs alone', () => {
    const file = join(tempDir(), 'arbor.db')
    const db = openDatabase(file)
    const writer = new TraceWriter(db)
    writer.createJob(sampleJob({ id: 'job-done', created_at: '2025-01-01T00:00:00.000Z' }))
    for (const event of sampleJobEvents(sampleJob({ id: 'job-done' }), undefined, { root: 'done-root', child: 'done-child' })) writer.append(event)
    writer.createJob(sampleJob())
    // The run stops after the child's first llm.call: root and child are both still running.
    for (const event of sampleJobEvents().slice(0, 12)) writer.append(event)
    writer.close()
    db.close()

    const reopened = openDatabase(file)
    const restarted = new TraceWriter(reopened)
    const now = () => new Date('2025-03-02T00:00:00.000Z')
    expect(endInterruptedJobs(reopened, restarted, now)).toEqual([jobId])
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
    expect(endInterruptedJobs(reopened, restarted, now)).toEqual([])
    restarted.close()
    reopened.close()
  })
})
