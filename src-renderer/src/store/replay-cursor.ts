import type { TraceEvent } from '@core/trace/events'
import { applyTreeEvents } from './tree-events'
import { emptyTree, type TreeState } from './tree-state'

/**
 * The tree as it was after the first `index` events of a job, for the replay scrubber. A seek
 * reduces (with the store's own reducers, applyTreeEvents) only from the nearest state below
 * it: the cursor itself, or a checkpoint kept every `checkpointEvery` events. Checkpoints are
 * kept on the way and built ahead in idle time (extendCheckpoints), so scrubbing a 2,000-agent
 * job back and forth reduces at most one span per move. They are cheap: trees are immutable and
 * share every node that did not change.
 */
export interface ReplayCursor {
  jobId: string
  events: readonly TraceEvent[]
  /** Running maximum of the events' times (ts may step back between agents), for seeking by time. */
  times: Float64Array
  index: number
  tree: TreeState
  /** checkpoints[k]: the tree after k × checkpointEvery events. */
  checkpoints: TreeState[]
}

export const checkpointEvery = 500

export function createReplayCursor(jobId: string, events: readonly TraceEvent[]): ReplayCursor {
  const times = new Float64Array(events.length)
  let latest = -Infinity
  events.forEach((event, index) => {
    const ms = Date.parse(event.ts)
    if (Number.isFinite(ms) && ms > latest) latest = ms
    times[index] = latest
  })
  const tree = emptyTree(jobId)
  return { jobId, events, times, index: 0, tree, checkpoints: [tree] }
}

/** How many events happened at or before `ms`. */
export function indexAt(cursor: ReplayCursor, ms: number): number {
  let low = 0
  let high = cursor.times.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (cursor.times[middle]! <= ms) low = middle + 1
    else high = middle
  }
  return low
}

/** The cursor after exactly `target` events (clamped to the trace). */
export function seekIndex(cursor: ReplayCursor, target: number): ReplayCursor {
  const goal = Math.max(0, Math.min(cursor.events.length, Math.floor(target)))
  if (goal === cursor.index) return cursor
  // Start from the nearest state at or below the goal: where the cursor is, or a checkpoint (either way).
  const checkpoint = Math.min(Math.floor(goal / checkpointEvery), cursor.checkpoints.length - 1)
  let { index, tree } = cursor
  if (goal < index || checkpoint * checkpointEvery > index) {
    index = checkpoint * checkpointEvery
    tree = cursor.checkpoints[checkpoint]!
  }
  ;({ index, tree } = reduceForward(cursor, index, tree, goal))
  return { ...cursor, index, tree }
}

/**
 * Adds up to `count` checkpoints past the last one, so later seeks anywhere start close by; a
 * replay calls it in idle slices until it returns false (every checkpoint kept).
 */
export function extendCheckpoints(cursor: ReplayCursor, count: number): boolean {
  const last = cursor.checkpoints.length - 1
  const goal = Math.min(cursor.events.length, (last + count) * checkpointEvery)
  reduceForward(cursor, last * checkpointEvery, cursor.checkpoints[last]!, goal)
  return (cursor.checkpoints.length - 1) * checkpointEvery + checkpointEvery <= cursor.events.length
}

/** Reduces events [index, goal) onto `tree`, a checkpoint's span at a time, keeping the checkpoints not kept yet (the array is shared by every copy of the cursor, and only grows). */
function reduceForward(cursor: ReplayCursor, from: number, start: TreeState, goal: number): { index: number; tree: TreeState } {
  const checkpoints = cursor.checkpoints
  let index = from
  let tree = start
  while (index < goal) {
    const next = Math.min(goal, (Math.floor(index / checkpointEvery) + 1) * checkpointEvery)
    tree = applyTreeEvents(tree, cursor.events.slice(index, next))
    index = next
    if (index % checkpointEvery === 0 && checkpoints.length === index / checkpointEvery) checkpoints.push(tree)
  }
  return { index, tree }
}
