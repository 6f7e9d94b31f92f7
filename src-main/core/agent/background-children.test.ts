import { describe, expect, it } from 'vitest'
import type { Envelope } from '../trace/events'
import { BackgroundChildren } from './background-children'

const envelope = (agentId: string): Envelope => ({
  status: 'completed',
  profile: 'general',
  agent_id: agentId,
  summary: `${agentId} done`,
  result: `${agentId} done`,
  terminal_reason: 'completed',
  stats: { steps: 1, tool_calls: 1, input_tokens: 1, output_tokens: 1, cost_usd: null, model: 'm', duration_ms: 1 },
})

describe('BackgroundChildren', () => {
  it('hands each envelope out once: a wait takes what it waited for, a later take gets only the rest', async () => {
    const children = new BackgroundChildren()
    children.started('a', 'A')
    children.started('b', 'B')
    const waiting = children.wait(['a'], undefined)
    expect(children.ended(envelope('b'))).toBe(true)
    expect(children.ended(envelope('a'))).toBe(true)
    expect((await waiting).map((each) => each.agent_id)).toEqual(['a'])
    expect(children.takeEnded().map((each) => each.agent_id)).toEqual(['b'])
    expect(children.takeEnded()).toEqual([])
    expect(await children.wait(undefined, 0)).toEqual([])
    expect(children.running()).toEqual([])
    expect(children.known()).toEqual([
      { agent_id: 'a', description: 'A' },
      { agent_id: 'b', description: 'B' },
    ])
  })

  it('refuses an envelope of a child it did not start, or a second one; a timeout or an abort ends a wait empty-handed', async () => {
    const children = new BackgroundChildren()
    children.started('a', 'A')
    expect(children.ended(envelope('stranger'))).toBe(false)
    expect(await children.wait(undefined, 5)).toEqual([])
    const controller = new AbortController()
    const aborted = children.wait(undefined, undefined, controller.signal)
    controller.abort()
    expect(await aborted).toEqual([])
    expect(children.running()).toEqual([{ agent_id: 'a', description: 'A' }])
    expect(children.ended(envelope('a'))).toBe(true)
    expect(children.ended(envelope('a'))).toBe(false)
    expect(children.takeEnded()).toHaveLength(1)
  })
})
