import { describe, expect, it } from 'vitest'
import type { Job } from '@core/trace/model'
import { emptyUsage } from '@core/trace/usage'
import { eventFactory } from '../test-support/events'
import { applyJobEvents, sortJobIds } from './jobs-events'
import { defaultSettings } from '@core/trace/model'

const job = (id: string, created_at: string): Job => ({
  id,
  project: '/p',
  task: 't',
  settings: defaultSettings(),
  status: 'running',
  created_at,
  ended_at: null,
  auto_approve: false,
  spawn_paused: false,
  usage: emptyUsage(),
  cost_usd: null,
})

describe('applyJobEvents', () => {
  it('flips a job row on control and end events, leaving other rows alone', () => {
    const jobs = { 'job-1': job('job-1', '2025-01-01T10:00:00Z'), other: job('other', '2025-01-01T09:00:00Z') }
    const event = eventFactory('job-1')
    const update = applyJobEvents(jobs, [
      event('control', null, { action: 'auto_approve', target: 'job-1', value: true, by: 'user' }),
      event('control', null, { action: 'pause', target: 'job-1', value: true, by: 'user' }),
      event('job.end', null, { status: 'completed', usage: { ...emptyUsage(), input_tokens: 10 }, cost_usd: 0.5 }),
    ])
    expect(update.jobs['job-1']).toMatchObject({ auto_approve: true, spawn_paused: true, status: 'completed', cost_usd: 0.5 })
    expect(update.jobs.other).toBe(jobs.other)
    expect(update.unknownJobStarted).toBe(false)
    expect(update.allPaused).toBeNull()
  })

  it('asks for a refresh when an unknown job starts, and tracks the global pause', () => {
    const event = eventFactory('new-job')
    const update = applyJobEvents({}, [
      event('job.start', null, { task: 'x' }),
      event('control', null, { action: 'pause', target: 'all', value: true, by: 'user' }),
    ])
    expect(update.unknownJobStarted).toBe(true)
    expect(update.allPaused).toBe(true)
  })

  it('orders jobs newest first', () => {
    const jobs = { a: job('a', '2025-01-01T10:00:00Z'), b: job('b', '2025-01-02T10:00:00Z') }
    expect(sortJobIds(jobs)).toEqual(['b', 'a'])
  })
})
