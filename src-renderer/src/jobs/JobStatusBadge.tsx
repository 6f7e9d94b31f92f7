import { jobOutcome } from '@core/trace/statuses'
import type { JobStatus, TerminalReason } from '@core/trace/events'

/** A job's status, named as the user knows it (a job they killed reads `killed`); the icon is drawn by CSS. */
export function JobStatusBadge({ status, reason, testId }: { status: JobStatus; reason?: TerminalReason | null; testId?: string }) {
  const outcome = jobOutcome(status, reason)
  return (
    <span className={`job-badge status-${outcome}`} data-testid={testId} data-status={status}>
      {status === 'running' && <span className="spinner small status-running" aria-hidden />}
      {outcome}
    </span>
  )
}
