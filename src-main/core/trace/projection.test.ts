import { describe, expect, it } from 'vitest'
import { eventTypes, type TraceEvent } from './events'
import type { JobProgress } from './model'
import { changesJob, reduceJob } from './projection'
import { emptyUsage } from './usage'

const job: JobProgress = { id: 'job_1', status: 'running', ended_at: null, auto_approve: false, spawn_paused: false, usage: emptyUsage(), cost_usd: null }

/** An event of `type` with `data`, the envelope filled in. */
const eventOf = (type: string, data: Record<string, unknown>): TraceEvent =>
  ({ type, seq: 1, ts: '2026-12-01T10:00:00.000Z', job_id: job.id, agent_id: 'agent_1', parent_id: null, depth: 0, data }) as TraceEvent

describe('changesJob', () => {
  // The store's projector skips reduceJob for every event changesJob says no to.
  it('is false only for event types reduceJob returns the job itself for', () => {
    const usage = { ...emptyUsage(), input_tokens: 5 }
    const dataThatChangesAJob: Record<string, unknown> = {
      status: 'completed',
      usage,
      cost_usd: 0.5,
      action: 'pause',
      target: job.id,
      value: true,
    }
    for (const type of eventTypes) {
      const event = eventOf(type, dataThatChangesAJob)
      if (changesJob(event)) expect(reduceJob(job, event), type).not.toBe(job)
      else expect(reduceJob(job, event), type).toBe(job)
    }
  })

  it('says yes to a job.end and a control only', () => {
    expect(eventTypes.filter((type) => changesJob(eventOf(type, {}))).sort()).toEqual(['control', 'job.end'])
  })
})
