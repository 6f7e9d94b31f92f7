import type { TraceEvent } from '../../../src-main/core/trace/events'

/** What the job list flags without opening a job: root approvals waiting, budget warnings. */
export interface AttentionState {
  /** Pending approvals of the root agent, by job (absent: none). */
  waiting: Record<string, number>
  /** The budget share a job's `budget.warning` reported, by job. */
  budgetWarnings: Record<string, number>
}

/**
 * Applies a live batch: an `approval.request` of a root agent (parent_id null) adds one to its
 * job's count, its `approval.decision` takes one off, `job.end` clears the job; `budget.warning`
 * records the share. Returns the same objects when nothing changed.
 */
export function applyAttentionEvents(state: AttentionState, events: readonly TraceEvent[]): AttentionState {
  let waiting = state.waiting
  let budgetWarnings = state.budgetWarnings
  const setWaiting = (jobId: string, count: number): void => {
    if ((waiting[jobId] ?? 0) === count) return
    if (waiting === state.waiting) waiting = { ...state.waiting }
    if (count > 0) waiting[jobId] = count
    else delete waiting[jobId]
  }
  for (const event of events) {
    const isRoot = event.agent_id !== null && event.parent_id === null
    const current = waiting[event.job_id] ?? 0
    if (event.type === 'approval.request' && isRoot) setWaiting(event.job_id, current + 1)
    else if (event.type === 'approval.decision' && isRoot) setWaiting(event.job_id, Math.max(0, current - 1))
    else if (event.type === 'job.end') setWaiting(event.job_id, 0)
    else if (event.type === 'budget.warning') {
      const share = typeof event.data.share === 'number' ? event.data.share : 0.8
      if (budgetWarnings[event.job_id] === share) continue
      if (budgetWarnings === state.budgetWarnings) budgetWarnings = { ...state.budgetWarnings }
      budgetWarnings[event.job_id] = share
    }
  }
  return waiting === state.waiting && budgetWarnings === state.budgetWarnings ? state : { waiting, budgetWarnings }
}
