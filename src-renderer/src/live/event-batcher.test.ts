import { describe, expect, it } from 'vitest'
import type { TraceEvent } from '@core/trace/events'
import { eventFactory } from '../test-support/events'
import { createEventBatcher, type Scheduler } from './event-batcher'

function manualScheduler() {
  const frames: (() => void)[] = []
  const timeouts: (() => void)[] = []
  const scheduler: Scheduler = { frame: (callback) => frames.push(callback), timeout: (callback) => timeouts.push(callback) }
  return { scheduler, frames, timeouts }
}

describe('createEventBatcher', () => {
  it('applies a burst of notifications once, on the next frame', () => {
    const { scheduler, frames } = manualScheduler()
    const batches: TraceEvent[][] = []
    const batcher = createEventBatcher((events) => batches.push(events), scheduler)
    const event = eventFactory()
    for (let index = 0; index < 50; index++) batcher.push([event('llm.call', 'root')])
    expect(batches).toHaveLength(0)
    expect(frames).toHaveLength(1)
    frames[0]!()
    expect(batches).toHaveLength(1)
    expect(batches[0]!.map((item) => item.seq)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1))
  })

  it('falls back to a timeout when frames do not run, and never applies twice', () => {
    const { scheduler, frames, timeouts } = manualScheduler()
    const batches: TraceEvent[][] = []
    const batcher = createEventBatcher((events) => batches.push(events), scheduler)
    batcher.push([eventFactory()('message', 'root')])
    timeouts[0]!()
    frames[0]!()
    expect(batches).toHaveLength(1)
    batcher.push([eventFactory()('message', 'root')])
    expect(frames).toHaveLength(2)
  })

  it('ignores empty notifications', () => {
    const { scheduler, frames } = manualScheduler()
    createEventBatcher(() => undefined, scheduler).push([])
    expect(frames).toHaveLength(0)
  })
})
