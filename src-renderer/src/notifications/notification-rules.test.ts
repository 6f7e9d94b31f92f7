import { describe, expect, it } from 'vitest'
import { eventFactory } from '../test-support/events'
import { notificationsFor } from './notification-rules'

const context = { taskOf: (jobId: string) => (jobId === 'job-1' ? 'Find where tax is computed\nand more' : '') }

describe('notificationsFor', () => {
  it('asks for a root approval and reports a job end, once per event', () => {
    const event = eventFactory('job-1')
    const planned = notificationsFor(
      [
        event('agent.start', 'root'),
        event('approval.request', 'root', { approval_id: 'ap-1', tool: 'bash', command: 'rm -rf build' }),
        event('llm.call', 'root'),
        event('job.end', null, { status: 'completed' }),
      ],
      context,
    )
    expect(planned).toEqual([
      { key: 'approval:ap-1', jobId: 'job-1', title: 'Arbor: approval needed', body: 'Run rm -rf build?\nFind where tax is computed' },
      { key: 'end:job-1', jobId: 'job-1', title: 'Arbor: Job completed', body: 'Find where tax is computed' },
    ])
  })

  it("asks for a subagent's approval that waits (ask mode), not for one its job's mode decided in the same batch", () => {
    const event = eventFactory('job-1')
    const child = { parent_id: 'root', depth: 1 }
    const planned = notificationsFor(
      [
        event('approval.request', 'child', { approval_id: 'ap-2', command: 'ls -R' }, child),
        event('approval.decision', 'child', { approval_id: 'ap-2', decision: 'denied', by: 'auto_deny' }, child),
        event('approval.request', 'child', { approval_id: 'ap-3', command: 'rm a.txt' }, child),
      ],
      context,
    )
    expect(planned.map((each) => each.key)).toEqual(['approval:ap-3'])
  })

  it('names a failed job', () => {
    const planned = notificationsFor([eventFactory('job-2')('job.end', null, { status: 'failed' })], context)
    expect(planned[0]).toMatchObject({ title: 'Arbor: Job failed', body: '' })
  })

  it('names a job the user killed as killed, and one cancelled otherwise as cancelled', () => {
    const event = eventFactory('job-2')
    const planned = notificationsFor(
      [event('job.end', null, { status: 'cancelled', reason: 'killed' }), eventFactory('job-3')('job.end', null, { status: 'cancelled' })],
      context,
    )
    expect(planned.map((each) => each.title)).toEqual(['Arbor: Job killed', 'Arbor: Job cancelled'])
  })
})
