import type { TraceEvent } from '@core/trace/events'

export interface Scheduler {
  /** Runs the callback before the next paint (requestAnimationFrame in the browser). */
  frame(callback: () => void): void
  /** A fallback for hidden windows, where animation frames stop. */
  timeout(callback: () => void, ms: number): void
}

export interface EventBatcher {
  push(events: readonly TraceEvent[]): void
  /** Applies what is queued now (used by tests and before a snapshot load). */
  flush(): void
}

const hiddenFallbackMs = 250

/**
 * Queues incoming events and hands them to `apply` at most once per animation frame, so a burst
 * of notifications costs one store update and one render, not one per event.
 */
export function createEventBatcher(apply: (events: TraceEvent[]) => void, scheduler: Scheduler): EventBatcher {
  let queue: TraceEvent[] = []
  let scheduled = false

  const flush = (): void => {
    scheduled = false
    if (queue.length === 0) return
    const batch = queue
    queue = []
    apply(batch)
  }

  const onTick = (): void => {
    if (scheduled) flush()
  }

  return {
    push(events) {
      if (events.length === 0) return
      queue.push(...events)
      if (scheduled) return
      scheduled = true
      scheduler.frame(onTick)
      scheduler.timeout(onTick, hiddenFallbackMs)
    },
    flush,
  }
}

export const browserScheduler: Scheduler = {
  frame: (callback) => requestAnimationFrame(() => callback()),
  timeout: (callback, ms) => setTimeout(callback, ms),
}
