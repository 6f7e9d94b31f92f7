import { describe, expect, it } from 'vitest'
import { eventFactory } from '../test-support/events'
import { applyAttentionEvents, type AttentionState } from './attention-events'

const empty: AttentionState = { waiting: {}, budgetWarnings: {} }

describe('applyAttentionEvents', () => {
  it("counts pending approvals, a subagent's in ask mode too but not one its mode decided, and clears a job when it ends", () => {
    const event = eventFactory('job-1')
    const asked = applyAttentionEvents(empty, [
      event('approval.request', 'root', { approval_id: 'a1' }),
      event('approval.request', 'root', { approval_id: 'a2' }),
      event('approval.request', 'child', { approval_id: 'a3' }, { parent_id: 'root', depth: 1 }),
      event('approval.request', 'child', { approval_id: 'a4' }, { parent_id: 'root', depth: 1 }),
      event('approval.decision', 'child', { approval_id: 'a4', decision: 'denied', by: 'auto_deny' }, { parent_id: 'root', depth: 1 }),
    ])
    expect(asked.waiting).toEqual({ 'job-1': ['a1', 'a2', 'a3'] })
    // A request already known (from listJobs) is not counted again.
    expect(applyAttentionEvents(asked, [event('approval.request', 'root', { approval_id: 'a2' })])).toBe(asked)
    const decided = applyAttentionEvents(asked, [event('approval.decision', 'root', { approval_id: 'a1', decision: 'approved' })])
    expect(decided.waiting).toEqual({ 'job-1': ['a2', 'a3'] })
    const ended = applyAttentionEvents(decided, [event('job.end', null, { status: 'completed' })])
    expect(ended.waiting).toEqual({})
  })

  it('ignores a decision it never saw the request of, and keeps other jobs', () => {
    const event = eventFactory('job-1')
    const state: AttentionState = { waiting: { other: ['o1', 'o2', 'o3'] }, budgetWarnings: {} }
    const next = applyAttentionEvents(state, [event('approval.decision', 'root', { approval_id: 'x', decision: 'denied' })])
    expect(next.waiting).toEqual({ other: ['o1', 'o2', 'o3'] })
  })

  it('records the share of a budget warning', () => {
    const event = eventFactory('job-1')
    const next = applyAttentionEvents(empty, [event('budget.warning', null, { tokens: 820, token_budget: 1000, share: 0.82 })])
    expect(next.budgetWarnings).toEqual({ 'job-1': 0.82 })
  })

  it("forgets a job's warning when its caps are set anew (a branch's caps leave it)", () => {
    const event = eventFactory('job-1')
    const warned = applyAttentionEvents(empty, [event('budget.warning', null, { share: 1.2 })])
    const branch = { action: 'set_budget', target: 'root', value: { tokens: 10, cost_usd: null }, by: 'user' }
    expect(applyAttentionEvents(warned, [event('control', 'root', branch)])).toBe(warned)
    const raised = applyAttentionEvents(warned, [event('control', null, { ...branch, target: 'job-1' })])
    expect(raised.budgetWarnings).toEqual({})
  })

  it('returns the same state when a batch changes nothing', () => {
    const event = eventFactory('job-1')
    expect(applyAttentionEvents(empty, [event('llm.call', 'root'), event('tool.call', 'root')])).toBe(empty)
  })
})
