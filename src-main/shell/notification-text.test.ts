import { describe, expect, it } from 'vitest'
import type { TraceEvent } from '../core/trace/events'
import { noticesFor } from './notification-text'

let seq = 0
const event = (type: TraceEvent['type'], data: Record<string, unknown>, agent: { id: string | null; parent: string | null }): TraceEvent =>
  ({
    type,
    seq: ++seq,
    ts: '2026-12-01T10:00:00.000Z',
    job_id: 'job_1',
    agent_id: agent.id,
    parent_id: agent.parent,
    depth: agent.id === null ? null : agent.parent === null ? 0 : 1,
    data,
  }) as TraceEvent

describe('noticesFor', () => {
  it("notifies for the root's approval requests and for job ends, not for a subagent's auto-decided ones", () => {
    const root = { id: 'agent_root', parent: null }
    const child = { id: 'agent_child', parent: 'agent_root' }
    const notices = noticesFor(
      [
        event('approval.request', { approval_id: 'a1', tool: 'bash', command: 'rm -rf build\necho done', reason: 'deletes files' }, root),
        event('approval.request', { approval_id: 'a2', tool: 'bash', command: 'git push', reason: 'pushes' }, child),
        event('llm.call', {}, root),
        event('job.end', { status: 'completed' }, { id: null, parent: null }),
      ],
      () => 'Fix the failing tax test\nand more',
    )
    expect(notices).toEqual([
      { title: 'Arbor: approval needed', body: 'rm -rf build\nFix the failing tax test', job_id: 'job_1' },
      { title: 'Arbor: job completed', body: 'Fix the failing tax test', job_id: 'job_1' },
    ])
  })
})
