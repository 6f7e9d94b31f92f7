import type { ApiHandlers } from '../api/contract'
import { getJobEventsButMessages } from '../store/queries'
import type { TraceEvent } from '../trace/events'
import { emptyTimeline, foldTimeline } from '../trace/timeline'
import { requireJob, type EngineContext } from './context'

type TimelineHandlers = Pick<ApiHandlers, 'getTimeline' | 'getReplayEvents'>

const pageSize = 5000
/** Long enough for a label, a model name, a reason; short enough that a replay of 100,000 events stays a few megabytes. */
export const replayTextLimit = 200

/**
 * The timeline view and the replay scrubber: both read a job's events without their message
 * bodies. The timeline is folded here with the renderer's own module, so a job of 100,000 events
 * reaches the renderer as lanes and bars; a replay needs the events themselves (the tree
 * projection reduces them), so they come in pages with their strings cut short.
 */
export function timelineHandlers(context: EngineContext): TimelineHandlers {
  const { db, writer } = context
  return {
    getTimeline: async ({ job_id }) => {
      requireJob(context, job_id)
      writer.flush()
      const timeline = emptyTimeline(job_id)
      for (let page = getJobEventsButMessages(db, job_id, 0, pageSize); page.length > 0;) {
        foldTimeline(timeline, page)
        if (page.length < pageSize) break
        page = getJobEventsButMessages(db, job_id, page.at(-1)!.seq, pageSize)
      }
      return { timeline }
    },
    getReplayEvents: async ({ job_id, after_seq, limit }) => {
      requireJob(context, job_id)
      writer.flush()
      return { events: getJobEventsButMessages(db, job_id, after_seq, limit ?? pageSize).map(boundedEvent) }
    },
  }
}

/** The event with every string in its data cut to replayTextLimit characters (a command's text, a result, a tool's arguments). */
export function boundedEvent(event: TraceEvent): TraceEvent {
  return { ...event, data: bounded(event.data) } as TraceEvent
}

function bounded<T>(value: T): T {
  if (typeof value === 'string') return (value.length > replayTextLimit ? `${value.slice(0, replayTextLimit)}…` : value) as T
  if (Array.isArray(value)) return value.map(bounded) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bounded(item)])) as T
  }
  return value
}
