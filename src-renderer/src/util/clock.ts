import { create } from 'zustand'

/**
 * A shared clock, so stall flags and the nodes' "for how long" update without a timer per node.
 * It ticks every second: a node re-renders only when what it reads of it changes (its tool's or
 * its silence's seconds), and only live agents' do.
 */
export const useClock = create<{ now: number }>()(() => ({ now: Date.now() }))

let started = false
export function startClock(intervalMs = 1000): void {
  if (started) return
  started = true
  setInterval(() => useClock.setState({ now: Date.now() }), intervalMs)
}

export const stallAfterMs = 60_000
