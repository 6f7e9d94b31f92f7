import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../store/database'
import { getJobEvents } from '../store/queries'
import { jobId, rootId, sampleJob, sampleJobEvents } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { TraceWriter, type TraceLog } from '../store/trace-writer'
import type { NewTraceEvent } from '../trace/events'
import { barLabelLimit, emptyTimeline, foldTimeline } from '../trace/timeline'
import type { EngineContext } from './context'
import { replayTextLimit, timelineHandlers } from './timeline-handlers'

describe('timeline handlers', () => {
  const tempDir = useTempDir()

  /** A real database with the sample job, plus a long command waiting for approval; the handlers read only the store. */
  function withJob() {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer: TraceLog = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    const events = sampleJobEvents()
    const approval: NewTraceEvent = {
      type: 'approval.request',
      ts: '2025-03-01T10:00:30.000Z',
      job_id: jobId,
      agent_id: rootId,
      parent_id: null,
      depth: 0,
      data: { approval_id: 'ap-1', tool: 'bash', command: `echo ${'x'.repeat(5000)}`, reason: 'long' },
    }
    for (const event of [...events.slice(0, -2), approval, ...events.slice(-2)]) writer.append(event)
    const handlers = timelineHandlers({ db, writer } as EngineContext)
    return { db, writer, handlers }
  }

  it('folds the stored job into the same timeline the renderer folds from its events', async () => {
    const { db, writer, handlers } = withJob()
    // Appended but not yet committed: the handler flushes first.
    const { timeline } = await handlers.getTimeline({ job_id: jobId })
    const expected = emptyTimeline(jobId)
    foldTimeline(expected, getJobEvents(db, jobId, 0, 10_000))
    expect(timeline).toEqual(expected)
    expect(timeline.lane_order).toHaveLength(2)
    expect(timeline.points).toHaveLength(3)
    // Bounded: the 5,000-character command is only the start of a label.
    expect(timeline.bars[rootId]!.find((bar) => bar.kind === 'approval')!.label).toHaveLength(barLabelLimit + 1)
    expect(JSON.stringify(timeline).length).toBeLessThan(4000)
    writer.close()
    db.close()
  })

  it('pages replay events without messages, every string cut short', async () => {
    const { db, writer, handlers } = withJob()
    const first = await handlers.getReplayEvents({ job_id: jobId, limit: 4 })
    const rest = await handlers.getReplayEvents({ job_id: jobId, after_seq: first.events.at(-1)!.seq })
    const all = [...first.events, ...rest.events]
    const stored = getJobEvents(db, jobId, 0, 10_000)
    expect(all.map((event) => event.seq)).toEqual(stored.filter((event) => event.type !== 'message').map((event) => event.seq))
    const command = all.find((event) => event.type === 'approval.request')!.data as { command: string }
    expect(command.command).toHaveLength(replayTextLimit + 1)
    expect(all.find((event) => event.type === 'agent.start')).toEqual(stored.find((event) => event.type === 'agent.start'))
    writer.close()
    db.close()
  })

  it('names a job that does not exist', async () => {
    const { db, writer, handlers } = withJob()
    await expect(handlers.getTimeline({ job_id: 'nope' })).rejects.toThrow(/job nope/)
    await expect(handlers.getReplayEvents({ job_id: 'nope' })).rejects.toThrow(/job nope/)
    writer.close()
    db.close()
  })
})
