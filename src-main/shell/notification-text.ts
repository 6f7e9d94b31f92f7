import type { TraceEvent } from '../core/trace/events'

/** A system notification to show: the desktop app's Electron `Notification`, the browser's Notification API. */
export interface SystemNotice {
  title: string
  body: string
  job_id: string
}

const firstLine = (text: string, max = 100): string => {
  const line = text.split('\n')[0] ?? ''
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * What deserves a notification in a batch of stored events: the root agent waiting for the user's
 * approval (a subagent's are decided at once by the job's policy), and a job ending. Pure, so both
 * shells share it and it is tested without Electron.
 */
export function noticesFor(events: readonly TraceEvent[], taskOf: (jobId: string) => string | undefined): SystemNotice[] {
  const notices: SystemNotice[] = []
  for (const event of events) {
    const task = firstLine(taskOf(event.job_id) ?? event.job_id)
    if (event.type === 'approval.request' && event.parent_id === null && event.agent_id !== null) {
      notices.push({ title: 'Arbor: approval needed', body: `${firstLine(event.data.command)}\n${task}`, job_id: event.job_id })
    } else if (event.type === 'job.end') {
      notices.push({ title: `Arbor: job ${event.data.status}`, body: task, job_id: event.job_id })
    }
  }
  return notices
}
