import { describe, expect, it } from 'vitest'
import { emptyTimeline, foldTimeline } from '@core/trace/timeline'
import { eventFactory } from '../test-support/events'
import { applyTimelineEvents, emptyTimelineState } from './timeline-slice'

describe('applyTimelineEvents', () => {
  const event = eventFactory()
  const events = [
    event('agent.start', 'root', { label: 'root', profile: 'general' }),
    event('llm.call', 'root', { model: 'm', usage: { input_tokens: 5, output_tokens: 1 }, cost_usd: null, duration_ms: 100 }),
    event('agent.start', 'child', { label: 'child', profile: 'explore' }, { parent_id: 'root', depth: 1 }),
  ]

  it('queues the job’s events while its fold loads, and skips other jobs', () => {
    const loading = emptyTimelineState('job-1', true)
    const other = eventFactory('job-2')('agent.start', 'x', { label: 'x', profile: 'general' })
    const queued = applyTimelineEvents(loading, [events[0]!, other])
    expect(queued.pending).toEqual([events[0]])
    // Nothing loaded and nothing loading (the timeline is not shown): events are not kept.
    expect(applyTimelineEvents(emptyTimelineState('job-1'), events)).toEqual(emptyTimelineState('job-1'))
  })

  it('folds a batch into the loaded timeline, bumping the revision, and reorders lanes only when they change', () => {
    const model = emptyTimeline('job-1')
    foldTimeline(model, events.slice(0, 1))
    const loaded = { ...emptyTimelineState('job-1'), model, laneOrder: ['root'] }
    const next = applyTimelineEvents(loaded, events.slice(1, 2))
    expect(next.revision).toBe(1)
    expect(next.laneOrder).toBe(loaded.laneOrder)
    expect(next.model!.bars.root).toHaveLength(1)
    const grown = applyTimelineEvents(next, events.slice(2))
    expect(grown.laneOrder).toEqual(['root', 'child'])
    // Seen already (a reconnect's replay of the same events): nothing changes.
    expect(applyTimelineEvents(grown, events)).toBe(grown)
  })
})
