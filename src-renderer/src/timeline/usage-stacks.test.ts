import { describe, expect, it } from 'vitest'
import type { TraceEvent } from '@core/trace/events'
import { emptyTimeline, foldTimeline, type Timeline } from '@core/trace/timeline'
import { eventFactory } from '../test-support/events'
import { costLabel, maxBands, otherKey, usageStacks } from './usage-stacks'

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
})

/** A root and children of two profiles; each child makes model calls of `tokens` each (the factory's clock: one second per event). */
function timelineOf(children: Array<{ id: string; profile: string; tokens: number[] }>): { timeline: Timeline; start: number } {
  const event = eventFactory()
  const events: TraceEvent[] = [
    event('job.start', null, { task: 't', settings: {} }),
    event('agent.start', 'root', { label: 'root', profile: 'general' }),
    event('llm.call', 'root', { model: 'm', usage: usage(90, 10), cost_usd: 0.5, duration_ms: 100 }),
  ]
  for (const child of children)
    events.push(event('agent.start', child.id, { label: `L-${child.id}`, profile: child.profile }, { parent_id: 'root', depth: 1 }))
  for (const child of children) {
    for (const tokens of child.tokens)
      events.push(
        event(
          'llm.call',
          child.id,
          { model: 'local-llama', usage: usage(tokens, 0), cost_usd: null, duration_ms: 100 },
          { parent_id: 'root', depth: 1 },
        ),
      )
  }
  const timeline = emptyTimeline()
  foldTimeline(timeline, events)
  return { timeline, start: Date.parse(events[0]!.ts) }
}

describe('usageStacks', () => {
  it('stacks cumulative tokens by agent, biggest band at the bottom, one x per model call', () => {
    const { timeline, start } = timelineOf([
      { id: 'a', profile: 'explore', tokens: [50, 60] },
      { id: 'b', profile: 'explore', tokens: [400] },
    ])
    const { xs, stacks } = usageStacks(timeline, 'agent', 'tokens', start)
    expect(xs).toEqual([2, 5, 6, 7])
    expect(stacks.map((stack) => stack.label)).toEqual(['L-b', 'L-a', 'root'])
    expect(stacks.map((stack) => stack.own)).toEqual([
      [0, 0, 0, 400],
      [0, 50, 110, 110],
      [100, 100, 100, 100],
    ])
    // The top band's edge is the job's running total.
    expect(stacks.at(-1)!.top).toEqual([100, 150, 210, 610])
  })

  it('stacks by profile, and by cost counting the calls with no price apart: their cost is unknown, not zero', () => {
    const { timeline, start } = timelineOf([
      { id: 'a', profile: 'explore', tokens: [50] },
      { id: 'b', profile: 'review', tokens: [400] },
      { id: 'c', profile: 'explore', tokens: [100] },
    ])
    const byProfile = usageStacks(timeline, 'profile', 'tokens', start)
    expect(byProfile.stacks.map((stack) => [stack.key, stack.own.at(-1)])).toEqual([
      ['review', 400],
      ['explore', 150],
      ['general', 100],
    ])
    const cost = usageStacks(timeline, 'profile', 'cost', start)
    // The same bands in the same order (so the same colours) as for tokens.
    expect(cost.stacks.map((stack) => [stack.key, stack.own.at(-1), stack.unpriced, stack.calls])).toEqual([
      ['review', 0, 1, 1],
      ['explore', 0, 2, 2],
      ['general', 0.5, 0, 1],
    ])
    expect(cost.unpricedModels).toEqual(['local-llama'])
    // What the plot shows for each band, and for the whole job (some calls priced, some not).
    const dollars = (value: number) => `$${value.toFixed(2)}`
    expect(cost.stacks.map((stack) => costLabel(stack.own.at(-1)!, stack.unpriced, stack.calls, dollars))).toEqual([
      'no price',
      'no price',
      '$0.50',
    ])
    expect(costLabel(0.5, 3, 4, dollars)).toBe('≥ $0.50')
    // Tokens know no price.
    expect(byProfile.unpricedModels).toEqual([])
    expect(byProfile.stacks.every((stack) => stack.unpriced === 0)).toBe(true)
  })

  it('folds the smallest agents into one band past the limit', () => {
    const children = Array.from({ length: 20 }, (_, index) => ({ id: `c${index}`, profile: 'explore', tokens: [1000 + index] }))
    const { timeline, start } = timelineOf(children)
    const { stacks } = usageStacks(timeline, 'agent', 'tokens', start)
    expect(stacks).toHaveLength(maxBands)
    expect(stacks.at(-1)).toMatchObject({ key: otherKey, label: `${21 - (maxBands - 1)} more agents` })
    expect(stacks.at(-1)!.top.at(-1)).toBe(100 + children.reduce((sum, child) => sum + child.tokens[0]!, 0))
  })
})
