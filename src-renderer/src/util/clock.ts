import { create } from 'zustand'

/** A shared coarse clock, so stall flags update without a timer per node. */
export const useClock = create<{ now: number }>()(() => ({ now: Date.now() }))

let started = false
export function startClock(intervalMs = 5000): void {
  if (started) return
  started = true
  setInterval(() => useClock.setState({ now: Date.now() }), intervalMs)
}

export const stallAfterMs = 60_000
