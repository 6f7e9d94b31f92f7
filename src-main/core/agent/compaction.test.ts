import { describe, expect, it } from 'vitest'
import type { ProviderMessage } from '../providers/types'
import { compactHistory, compactionNote, compactionTarget, estimateTokens, needsCompaction } from './compaction'

const system: ProviderMessage = { role: 'system', content: 'You are a worker.' }
const task: ProviderMessage = { role: 'user', content: 'Fix the bug.' }

/** One assistant message calling `calls` tools, and their results of `size` characters each. */
function exchange(step: number, calls = 1, size = 400): ProviderMessage[] {
  const ids = Array.from({ length: calls }, (_, index) => `call_${step}_${index}`)
  return [
    { role: 'assistant', content: `step ${step}`, tool_calls: ids.map((id) => ({ id, name: 'read_file', arguments: '{"path":"a"}' })) },
    ...ids.map((id): ProviderMessage => ({ role: 'tool', content: 'x'.repeat(size), tool_call_id: id })),
  ]
}

/** Every tool result right after its assistant message (or a sibling result), as the APIs require. */
function assertPairsIntact(messages: ProviderMessage[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return
    const owner = messages
      .slice(0, index)
      .reverse()
      .find((earlier) => earlier.role !== 'tool')
    expect(owner?.role).toBe('assistant')
    expect(owner?.role === 'assistant' && owner.tool_calls?.some((call) => call.id === message.tool_call_id)).toBe(true)
  })
}

describe('needsCompaction', () => {
  it('is true only past 75% of a budget, after a request', () => {
    expect(needsCompaction(751, 1000)).toBe(true)
    expect(needsCompaction(750, 1000)).toBe(false)
    expect(needsCompaction(undefined, 1000)).toBe(false)
    expect(needsCompaction(1_000_000, null)).toBe(false)
  })
})

describe('compactHistory', () => {
  it('keeps the system prompt, the task, a note and the newest exchanges that fit', () => {
    const history = [system, task, ...exchange(1), ...exchange(2), ...exchange(3), ...exchange(4)]
    // Each exchange is about 110 tokens: room for the head, the note and two exchanges.
    const compaction = compactHistory(history, 260)!
    expect(compaction.messages).toEqual([system, task, { role: 'user', content: compactionNote(4) }, ...exchange(3), ...exchange(4)])
    expect(compaction).toMatchObject({ removed: 4, note: '[4 earlier messages were removed to fit the context budget]' })
    expect(compaction.before_tokens).toBe(estimateTokens(history))
    expect(compaction.after_tokens).toBeLessThan(compaction.before_tokens)
  })

  it('never splits an assistant message from its tool results', () => {
    const history = [system, task, ...exchange(1, 3), ...exchange(2, 3), ...exchange(3, 3)]
    // Room for one and a half exchanges: the older one must go whole.
    const compaction = compactHistory(history, 500)!
    expect(compaction.messages.slice(3)).toEqual(exchange(3, 3))
    assertPairsIntact(compaction.messages)
  })

  it('always keeps the newest exchange and always removes the oldest', () => {
    const fail: ProviderMessage = { role: 'user', content: 'FAIL: not JSON' }
    const history = [system, task, ...exchange(1), fail, ...exchange(2, 2, 40_000)]
    const tight = compactHistory(history, 0)!
    expect(tight.messages).toEqual([system, task, { role: 'user', content: compactionNote(3) }, ...exchange(2, 2, 40_000)])
    const roomy = compactHistory(history, 1_000_000)!
    expect(roomy.removed).toBe(2)
    expect(roomy.messages.slice(3)).toEqual([fail, ...exchange(2, 2, 40_000)])
  })

  it('adds up with the note of an earlier compaction instead of stacking notes', () => {
    const first = compactHistory([system, task, ...exchange(1), ...exchange(2), ...exchange(3)], 0)!
    const second = compactHistory([...first.messages, ...exchange(4)], 0)!
    expect(second.messages).toEqual([system, task, { role: 'user', content: compactionNote(6) }, ...exchange(4)])
    expect(second.removed).toBe(2)
  })

  it('has nothing to remove with one exchange or none', () => {
    expect(compactHistory([system, task], 0)).toBeUndefined()
    expect(compactHistory([system, task, ...exchange(1, 2, 90_000)], 0)).toBeUndefined()
    expect(compactHistory([system], 0)).toBeUndefined()
  })
})

describe('compactionTarget', () => {
  it('is half the budget less the tool definitions, and at most half the history after an overflow', () => {
    expect(compactionTarget({ reason: 'context_budget', budget: 16_000, historyTokens: 13_000, toolTokens: 500 })).toBe(7_500)
    expect(compactionTarget({ reason: 'context_length', budget: 16_000, historyTokens: 10_000, toolTokens: 500 })).toBe(5_000)
    expect(compactionTarget({ reason: 'context_length', budget: null, historyTokens: 10_000, toolTokens: 500 })).toBe(5_000)
    expect(compactionTarget({ reason: 'context_budget', budget: 100, historyTokens: 90, toolTokens: 500 })).toBe(0)
  })
})
