import { useEffect, useRef, useState } from 'react'
import { flushSync } from 'react-dom'

/**
 * Mounting a node costs its DOM, its edge, its minimap rect and xyflow's measuring of it, all in
 * one synchronous render: a root spawning 200 children at once made that a multi-second task on a
 * loaded machine. A burst of new nodes is therefore handed to xyflow a slice per animation frame,
 * each slice sized by what the last one cost (its render, commit and xyflow's store update): at
 * most halved when that ran long, at most doubled when it was quick. Every slice also costs xyflow
 * a pass over all its nodes, so a burst takes at most `maxSlices` of them however slow the
 * machine. A growth of one slice or less (a spawn or two) shows at once.
 */
export const revealPace = { firstSlice: 24, minSlice: 8, maxSlice: 1024, maxSlices: 12, sliceTargetMs: 40 }

/** The next slice, from the last one, the milliseconds it took and the nodes there are in all. */
export function nextSlice(slice: number, tookMs: number, total: number): number {
  const scaled = Math.round((slice * revealPace.sliceTargetMs) / Math.max(1, tookMs))
  const bounded = Math.min(slice * 2, Math.max(Math.ceil(slice / 2), scaled))
  const floor = Math.max(revealPace.minSlice, Math.ceil(total / revealPace.maxSlices))
  return Math.min(revealPace.maxSlice, Math.max(floor, bounded))
}

/**
 * What to show without waiting a frame, of `total` nodes with `shown` shown: all of a growth of
 * one slice or less, and never less than the first slice. The graph's first render may have no
 * nodes yet (its layout lands in a second pass of the same render), and a tree appearing must not
 * wait a frame for its first slice.
 */
export function shownAtOnce(shown: number, total: number, slice: number): number {
  if (total - shown <= slice) return total
  return Math.max(shown, Math.min(total, revealPace.firstSlice))
}

/** How many of `total` nodes (in spawn order, so parents come first) to show now. */
export function useRevealedCount(total: number): number {
  const [shown, setShown] = useState(() => Math.min(total, revealPace.firstSlice))
  const slice = useRef(revealPace.firstSlice)
  // Adjusting state while rendering (React re-renders at once).
  const now = shownAtOnce(shown, total, slice.current)
  if (now !== shown) setShown(now)
  const behind = shown < total
  useEffect(() => {
    if (!behind) return
    const frame = requestAnimationFrame(() => {
      const started = performance.now()
      // Rendered here and now, so the slice lands in this frame and its whole cost is timed. `total`
      // may be stale by now: the effect runs again after each slice while behind.
      flushSync(() => setShown((count) => Math.min(total, count + slice.current)))
      slice.current = nextSlice(slice.current, performance.now() - started, total)
    })
    return () => cancelAnimationFrame(frame)
    // Not on `total`: a burst arriving every frame must not keep cancelling the next slice.
  }, [shown, behind])
  return Math.min(shown, total)
}
