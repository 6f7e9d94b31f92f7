import { describe, expect, it } from 'vitest'
import { create } from 'zustand'
import type { ArborApi } from '@core/api/contract'
import type { TraceEvent } from '@core/trace/events'
import type { Transport } from '../api/transport'
import { setTransport } from '../store/api-ref'
import { createReplaySlice } from '../store/replay-slice'
import type { ReplaySlice } from '../store/types'
import { eventFactory } from '../test-support/events'
import { replaySliderRange, replayTimeAt } from './replay-slider'

/** A decimal string (as a DOM attribute holds a number) as an exact fraction: digits / 10^scale. */
function decimal(text: string): { digits: bigint; scale: number } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (!match) throw new Error(`not a plain decimal: ${text}`)
  const fraction = match[2] ?? ''
  return { digits: BigInt(match[1]! + fraction), scale: fraction.length }
}

/**
 * The value an `<input type=range min=0>` keeps when set to `value`, as the HTML standard has a
 * browser sanitize it, in exact decimals as Chromium does: with a step, the nearest min + n × step
 * that is not past max (Chromium keeps 7.912042 of max 7.916, step 0.003958000000000001).
 */
function rangeValue(value: string, max: string, step: string): number {
  const clamped = Math.min(Number(value), Number(max))
  if (step === 'any') return clamped
  const s = decimal(step)
  const m = decimal(max)
  const v = decimal(String(clamped))
  const scale = Math.max(s.scale, m.scale, v.scale)
  const at = (d: { digits: bigint; scale: number }) => d.digits * 10n ** BigInt(scale - d.scale)
  const steps = (at(v) * 2n + at(s)) / (2n * at(s))
  const lastStep = at(m) / at(s)
  const n = steps > lastStep ? lastStep : steps
  return Number(n * at(s)) / 10 ** scale
}

/** Three agents whose last events come in the job's final millisecond, `lengthMs` after its first. */
function jobOf(lengthMs: number): TraceEvent[] {
  const event = eventFactory()
  const start = Date.UTC(2026, 0, 1, 12)
  const at = (ms: number, built: TraceEvent): TraceEvent => ({ ...built, ts: new Date(start + ms).toISOString() })
  const end = { status: 'completed', terminal_reason: 'completed', steps: 1 }
  return [
    at(0, event('agent.start', 'root', { label: 'root', profile: 'general' })),
    at(1, event('agent.start', 'a', { label: 'a', profile: 'explore' }, { parent_id: 'root', depth: 1 })),
    at(2, event('agent.start', 'b', { label: 'b', profile: 'explore' }, { parent_id: 'root', depth: 1 })),
    at(lengthMs - 1, event('agent.end', 'a', end, { parent_id: 'root', depth: 1 })),
    at(lengthMs, event('agent.end', 'b', end, { parent_id: 'root', depth: 1 })),
    at(lengthMs, event('agent.end', 'root', end)),
  ]
}

async function replayOf(events: TraceEvent[]) {
  const api = { getReplayEvents: async () => ({ events }) } as unknown as ArborApi
  setTransport({ kind: 'browser', api } as Transport)
  type Store = ReplaySlice & { selectedJobId: string }
  const store = create<Store>()((...args) => ({
    selectedJobId: 'job-1',
    ...(createReplaySlice as unknown as (...a: typeof args) => ReplaySlice)(...args),
  }))
  await store.getState().startReplay()
  return store
}

describe('the replay slider', () => {
  it('reaches the job’s end exactly, where a stepped range stopped a step short', () => {
    // The range it replaced: max = the length in seconds, step = a 2,000th of it.
    const total = 7.916
    expect(rangeValue(String(total), String(total), String(total / 2000))).toBeCloseTo(7.912042, 9)
    let short = 0
    for (let lengthMs = 1; lengthMs <= 30_000; lengthMs++) {
      const seconds = lengthMs / 1000
      if (rangeValue(String(seconds), String(seconds), String(Math.max(seconds / 2000, 0.001))) < seconds) short++
      const range = replaySliderRange(1_000_000, 1_000_000 + lengthMs)
      const kept = rangeValue(String(range.max), String(range.max), range.step)
      expect(replayTimeAt(1_000_000, 1_000_000 + lengthMs, String(kept))).toBe(1_000_000 + lengthMs)
    }
    expect(short).toBeGreaterThan(1000)
  })

  it('maps a position to a whole millisecond, never below the end at the maximum, and clamps outside the job', () => {
    const start = Date.UTC(2026, 0, 1, 12)
    expect(replayTimeAt(start, start + 9041, '9.041')).toBe(start + 9041)
    expect(replayTimeAt(start, start + 9041, '4.5203')).toBe(start + 4520)
    expect(replayTimeAt(start, start + 9041, '12')).toBe(start + 9041)
    expect(replayTimeAt(start, start + 9041, '-1')).toBe(start)
    expect(replayTimeAt(start, start + 9041, '')).toBe(start)
  })

  it('shows the final tree at the slider’s maximum, for every job length up to 20 s', async () => {
    for (let lengthMs = 3; lengthMs <= 20_000; lengthMs += 997) {
      const store = await replayOf(jobOf(lengthMs))
      const replay = store.getState().replay!
      const range = replaySliderRange(replay.startMs, replay.endMs)
      store.getState().seekReplay(replayTimeAt(replay.startMs, replay.endMs, String(range.max)))
      const { cursor, atMs, endMs } = store.getState().replay!
      expect(atMs).toBe(endMs)
      expect(cursor!.index).toBe(6)
      expect(cursor!.tree.order.map((id) => cursor!.tree.agents[id]!.status)).toEqual(['completed', 'completed', 'completed'])
      // A millisecond before the end, the root and b are still running.
      store.getState().seekReplay(replayTimeAt(replay.startMs, replay.endMs, String(range.max - 0.001)))
      const before = store.getState().replay!.cursor!.tree
      expect(before.order.map((id) => before.agents[id]!.status)).toEqual(['running', 'completed', 'running'])
    }
  })
})
