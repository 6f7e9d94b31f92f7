import { memo } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { formatTime, shortId } from '../util/format'
import { JobStatusBadge } from './JobStatusBadge'

const selectJobOrder = (state: ArborState) => state.jobOrder
const selectJobsLoaded = (state: ArborState) => state.jobsLoaded

/** The project's jobs, newest first; clicking one shows its tree. */
export function JobList() {
  const jobIds = useArbor(useShallow(selectJobOrder))
  const loaded = useArbor(selectJobsLoaded)
  return (
    <div className="job-list" data-testid="job-list">
      <div className="section-title">Jobs</div>
      {loaded && jobIds.length === 0 && <div className="muted small pad">No jobs yet.</div>}
      {jobIds.map((jobId) => (
        <JobItem key={jobId} jobId={jobId} />
      ))}
    </div>
  )
}

/**
 * Approvals waiting for the user: exact from the loaded tree for the job on screen, else the
 * live set (listJobs().waiting, then approval events).
 */
function waitingCount(state: ArborState, jobId: string): number {
  const job = state.jobs[jobId]
  if (!job || job.status !== 'running' || job.imported) return 0
  if (state.tree.jobId === jobId && !state.tree.loading && !state.tree.error) {
    return state.tree.approvals.length
  }
  return state.waiting[jobId]?.length ?? 0
}

function selectJobItem(state: ArborState, jobId: string) {
  const job = state.jobs[jobId]
  return {
    task: job?.task ?? '',
    status: job?.status ?? 'running',
    endReason: job?.end_reason ?? null,
    createdAt: job?.created_at ?? '',
    imported: job?.imported === true,
    waiting: waitingCount(state, jobId),
    selected: state.selectedJobId === jobId,
  }
}

const JobItem = memo(function JobItem({ jobId }: { jobId: string }) {
  const job = useArbor(useShallow((state: ArborState) => selectJobItem(state, jobId)))
  return (
    <button
      className={`job-item${job.selected ? ' selected' : ''}${job.waiting > 0 ? ' waiting' : ''}`}
      data-testid="job-item"
      data-job-id={jobId}
      data-status={job.status}
      data-imported={job.imported ? 'true' : undefined}
      onClick={() => useArbor.getState().selectJob(jobId)}
      title={job.task}
    >
      <JobStatusBadge status={job.status} reason={job.endReason} />
      <span className="job-item__task">{job.task.split('\n')[0] || '(no task)'}</span>
      {job.waiting > 0 ? (
        <span
          className="job-item__waiting"
          data-testid="job-waiting"
          data-count={job.waiting}
          title={`${job.waiting} approval${job.waiting > 1 ? 's' : ''} waiting for you`}
        >
          {job.waiting}
        </span>
      ) : (
        <span />
      )}
      <span className="job-item__meta">
        {formatTime(job.createdAt)} · {shortId(jobId)}
        {job.imported && (
          <span className="job-item__imported" data-testid="job-imported-mark" title="Imported from a trace file: read-only">
            imported
          </span>
        )}
      </span>
    </button>
  )
})
