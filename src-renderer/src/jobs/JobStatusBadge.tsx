import type { JobStatus } from '@core/trace/events'

/** A job's status; the text is exactly the status (the icon is drawn by CSS). */
export function JobStatusBadge({ status, testId }: { status: JobStatus; testId?: string }) {
  return (
    <span className={`job-badge status-${status}`} data-testid={testId} data-status={status}>
      {status === 'running' && <span className="spinner small status-running" aria-hidden />}
      {status}
    </span>
  )
}
