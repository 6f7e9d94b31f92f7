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

function selectJobItem(state: ArborState, jobId: string) {
  const job = state.jobs[jobId]
  return {
    task: job?.task ?? '',
    status: job?.status ?? 'running',
    createdAt: job?.created_at ?? '',
    selected: state.selectedJobId === jobId,
  }
}

const JobItem = memo(function JobItem({ jobId }: { jobId: string }) {
  const job = useArbor(useShallow((state: ArborState) => selectJobItem(state, jobId)))
  return (
    <button
      className={`job-item${job.selected ? ' selected' : ''}`}
      data-testid="job-item"
      data-job-id={jobId}
      data-status={job.status}
      onClick={() => useArbor.getState().selectJob(jobId)}
      title={job.task}
    >
      <JobStatusBadge status={job.status} />
      <span className="job-item__task">{job.task.split('\n')[0] || '(no task)'}</span>
      <span className="job-item__meta">
        {formatTime(job.createdAt)} · {shortId(jobId)}
      </span>
    </button>
  )
})
