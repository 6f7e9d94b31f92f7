import type { TraceEvent } from '@core/trace/events'
import { jobOutcome } from '@core/trace/statuses'

/** One system notification to show: `key` is unique per event, so none is shown twice. */
export interface PlannedNotification {
  key: string
  jobId: string
  title: string
  body: string
}

export interface NotificationContext {
  /** The job's task, for the body ('' when unknown). */
  taskOf(jobId: string): string
}

const firstLine = (text: string, max = 120): string => {
  const line = text.split('\n')[0]?.trim() ?? ''
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const endTitles: Record<string, string> = {
  completed: 'Job completed',
  failed: 'Job failed',
  cancelled: 'Job cancelled',
  killed: 'Job killed',
  interrupted: 'Job interrupted',
}

/**
 * The notifications a live batch calls for: one when a job's root agent starts waiting for an
 * approval (the root's; a subagent's in ask mode, which is one its batch does not also decide), one when a
 * job ends. Nothing else.
 */
export function notificationsFor(events: readonly TraceEvent[], context: NotificationContext): PlannedNotification[] {
  const planned: PlannedNotification[] = []
  // Asked only for the rare event that gives a notification: a live batch holds thousands.
  const task = (event: TraceEvent): string => firstLine(context.taskOf(event.job_id))
  // A subagent's request that its job's mode decided at once comes with its decision.
  const decided = new Set(events.flatMap((event) => (event.type === 'approval.decision' ? [event.data.approval_id] : [])))
  for (const event of events) {
    if (event.type === 'approval.request' && event.agent_id !== null && !decided.has(event.data.approval_id)) {
      const command = typeof event.data.command === 'string' ? firstLine(event.data.command, 80) : ''
      const approvalId = typeof event.data.approval_id === 'string' ? event.data.approval_id : String(event.seq)
      planned.push({
        key: `approval:${approvalId}`,
        jobId: event.job_id,
        title: 'Arbor: approval needed',
        body: [command && `Run ${command}?`, task(event)].filter(Boolean).join('\n'),
      })
    } else if (event.type === 'job.end') {
      const status = jobOutcome(event.data.status, event.data.reason)
      planned.push({
        key: `end:${event.job_id}`,
        jobId: event.job_id,
        title: `Arbor: ${endTitles[status] ?? `Job ${status}`}`,
        body: task(event),
      })
    }
  }
  return planned
}
