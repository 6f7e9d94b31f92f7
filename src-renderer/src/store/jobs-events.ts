import type { TraceEvent } from '@core/trace/events'
import type { Job } from '@core/trace/model'
import { reduceJob } from '@core/trace/projection'

export interface JobsUpdate {
  jobs: Record<string, Job>
  /** A job.start of a job the list does not hold yet: the list should be re-fetched. */
  unknownJobStarted: boolean
  /** The global pause flag after `control` events aimed at all jobs, if any changed it. */
  allPaused: boolean | null
}

/** Applies a batch of events to the job rows with the store's reducer (reduceJob). */
export function applyJobEvents(jobs: Record<string, Job>, events: readonly TraceEvent[]): JobsUpdate {
  let next = jobs
  let unknownJobStarted = false
  let allPaused: boolean | null = null
  for (const event of events) {
    if (event.type === 'job.start' && !next[event.job_id]) unknownJobStarted = true
    if (event.type === 'control' && isGlobalTarget(event.data.target)) {
      if (event.data.action === 'pause') allPaused = true
      if (event.data.action === 'resume') allPaused = false
    }
    const job = next[event.job_id]
    if (!job) continue
    const reduced = reduceJob(job, event)
    if (reduced === job) continue
    if (next === jobs) next = { ...jobs }
    next[event.job_id] = reduced
  }
  return { jobs: next, unknownJobStarted, allPaused }
}

const isGlobalTarget = (target: unknown): boolean => target === null || target === undefined || target === '*' || target === 'all'

/** Newest first. */
export function sortJobIds(jobs: Record<string, Job>): string[] {
  return Object.values(jobs)
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .map((job) => job.id)
}
