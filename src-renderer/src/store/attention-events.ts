import type { TraceEvent } from '@core/trace/events'

/** What the job list flags without opening a job: approvals waiting for the user, budget warnings. */
export interface AttentionState {
  /** Ids of the approvals waiting for the user (the root's; subagents' in ask mode), by job (absent: none). */
  waiting: Record<string, readonly string[]>
  /** The budget share a job's `budget.warning` reported, by job. */
  budgetWarnings: Record<string, number>
}

/**
 * Applies a live batch: an `approval.request` adds its id to its job's pending set, its
 * `approval.decision` removes it (a subagent's request its job's mode decided comes with its
 * decision, and so never counts), `job.end` clears the job; `budget.warning`
 * records the share. By id, so a request seen both in `listJobs` and live counts once. Returns the
 * same objects when nothing changed.
 */
export function applyAttentionEvents(state: AttentionState, events: readonly TraceEvent[]): AttentionState {
  let waiting = state.waiting
  let budgetWarnings = state.budgetWarnings
  const setWaiting = (jobId: string, ids: readonly string[]): void => {
    if (waiting === state.waiting) waiting = { ...state.waiting }
    if (ids.length > 0) waiting[jobId] = ids
    else delete waiting[jobId]
  }
  for (const event of events) {
    const isAgent = event.agent_id !== null
    const current = waiting[event.job_id] ?? []
    const id = typeof event.data.approval_id === 'string' ? event.data.approval_id : null
    if (event.type === 'approval.request' && isAgent && id !== null && !current.includes(id)) setWaiting(event.job_id, [...current, id])
    else if (event.type === 'approval.decision' && isAgent && id !== null && current.includes(id))
      setWaiting(
        event.job_id,
        current.filter((each) => each !== id),
      )
    else if (event.type === 'job.end' && current.length > 0) setWaiting(event.job_id, [])
    else if (event.type === 'budget.warning') {
      const share = typeof event.data.share === 'number' ? event.data.share : 0.8
      if (budgetWarnings[event.job_id] === share) continue
      if (budgetWarnings === state.budgetWarnings) budgetWarnings = { ...state.budgetWarnings }
      budgetWarnings[event.job_id] = share
    } else if (event.type === 'control' && event.data.action === 'set_budget' && event.data.target === event.job_id) {
      // New caps: the old warning's share is of the old ones (a new warning comes at 80 % of these).
      if (!(event.job_id in budgetWarnings)) continue
      if (budgetWarnings === state.budgetWarnings) budgetWarnings = { ...state.budgetWarnings }
      delete budgetWarnings[event.job_id]
    }
  }
  return waiting === state.waiting && budgetWarnings === state.budgetWarnings ? state : { waiting, budgetWarnings }
}
