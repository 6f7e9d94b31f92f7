import { describe, expect, it } from 'vitest'
import type { AgentNode } from '@core/trace/model'
import { emptyUsage } from '@core/trace/usage'
import { isStalled, liveActivity } from './activity'

const at = Date.parse('2026-12-03T10:00:00.000Z')
const node = (fields: Partial<AgentNode>): AgentNode => ({
  id: 'a',
  job_id: 'j',
  parent_id: null,
  depth: 0,
  label: 'root',
  profile: 'general',
  model: 'm',
  task: 't',
  status: 'running',
  terminal_reason: null,
  current_tool: null,
  steps: 1,
  max_steps: 50,
  total_token_budget: null,
  usage: emptyUsage(),
  cost_usd: null,
  created_at: new Date(at).toISOString(),
  started_at: new Date(at).toISOString(),
  ended_at: null,
  last_event_at: new Date(at).toISOString(),
  ...fields,
})
const healthy = (now: number) => ({ now, unresponsiveSince: null })

describe('liveActivity', () => {
  it('says which tool runs and for how long, or that the agent is in a model call', () => {
    expect(liveActivity(node({ current_tool: 'bash' }), healthy(at + 90_000))).toEqual({ text: '▸ bash · 1 min 30 s', kind: 'tool' })
    expect(liveActivity(node({}), healthy(at + 12_000))).toEqual({ text: 'model call · 12 s', kind: 'model' })
  })

  it('tells waiting for the user and for a slot apart, and leaves ended agents to their status', () => {
    expect(liveActivity(node({ status: 'waiting_approval', current_tool: 'bash' }), healthy(at))?.text).toBe('⚠ waiting for you')
    expect(liveActivity(node({ status: 'queued' }), healthy(at))?.text).toBe('waiting for a slot')
    expect(liveActivity(node({ status: 'completed', ended_at: new Date(at).toISOString() }), healthy(at))).toBeNull()
  })

  it('puts unresponsive before anything else while the agent lives', () => {
    const since = new Date(at).toISOString()
    expect(liveActivity(node({ current_tool: 'bash' }), { now: at + 45_000, unresponsiveSince: since })).toEqual({
      text: '✕ unresponsive · silent 45 s',
      kind: 'unresponsive',
    })
  })
})

describe('isStalled', () => {
  it('flags a model call quiet for over 60 s, never a long tool (its process beats) nor an unresponsive agent', () => {
    expect(isStalled(node({}), 0, healthy(at + 61_000))).toBe(true)
    expect(isStalled(node({}), 0, healthy(at + 59_000))).toBe(false)
    expect(isStalled(node({ current_tool: 'bash' }), 0, healthy(at + 90_000))).toBe(false)
    expect(isStalled(node({}), 0, { now: at + 90_000, unresponsiveSince: new Date(at).toISOString() })).toBe(false)
    expect(isStalled(node({}), 1, healthy(at + 90_000))).toBe(false)
  })
})
