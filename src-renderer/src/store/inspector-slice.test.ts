import { describe, expect, it } from 'vitest'
import { create } from 'zustand'
import type { ApiInput, ArborApi } from '@core/api/contract'
import type { TraceEvent } from '@core/trace/events'
import type { Transport } from '../api/transport'
import { setTransport } from './api-ref'
import { createInspectorSlice } from './inspector-slice'
import type { InspectorSlice } from './types'

/** An agent's stored events, answered a page at a time as the store answers getEvents. */
function pagedApi(count: number) {
  const events = Array.from({ length: count }, (_, index) => ({ seq: 2 * index + 1, agent_id: 'a', type: 'llm.call' }) as TraceEvent)
  const asked: number[] = []
  const getEvents = async ({ after_seq = 0, limit = 1000 }: ApiInput<'getEvents'>) => {
    asked.push(after_seq)
    return { events: events.filter((event) => event.seq > after_seq).slice(0, limit) }
  }
  setTransport({ kind: 'browser', api: { getEvents } as unknown as ArborApi } as Transport)
  return { events, asked }
}

const makeStore = () =>
  create<InspectorSlice>()((...args) => (createInspectorSlice as unknown as (...a: typeof args) => InspectorSlice)(...args))
const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 1))
}

describe('inspector slice', () => {
  it('loads a long trace page by page, showing each page as it arrives', async () => {
    const { events, asked } = pagedApi(12_345)
    const store = makeStore()
    const sizes: number[] = []
    store.subscribe((state) => sizes.push(state.inspectors[0]?.events.length ?? -1))
    store.getState().inspect('a')
    await until(() => store.getState().inspectors[0]!.loading === false)
    expect(store.getState().inspectors[0]!.events).toEqual(events)
    expect(sizes.filter((size) => size > 0)).toEqual([5000, 10_000, 12_345])
    expect(asked).toEqual([0, events[4999]!.seq, events[9999]!.seq])
  })

  it('stops fetching once the inspector is closed', async () => {
    const { asked } = pagedApi(20_000)
    const store = makeStore()
    store.getState().inspect('a')
    await until(() => (store.getState().inspectors[0]?.events.length ?? 0) > 0)
    store.getState().closeInspector('a')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(asked.length).toBeLessThan(4)
    expect(store.getState().inspectors).toEqual([])
  })
})
