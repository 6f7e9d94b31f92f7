import { useArbor } from '../store'
import { ChangesPanel } from './ChangesPanel'

/** The toolbar's Changes: the job's whole set of changed files, in a panel over the graph. */
export function JobChangesButton({ jobId }: { jobId: string }) {
  const count = useArbor((state) => (state.changeCounts.jobId === jobId ? state.changeCounts.jobFiles : 0))
  return (
    <button
      type="button"
      className="button"
      data-testid="job-changes"
      title="The files this job's agents changed, with their diffs"
      onClick={() => useArbor.getState().openJobChanges(true)}
    >
      Changes{count > 0 ? ` (${count})` : ''}
    </button>
  )
}

export function JobChangesDrawer() {
  const jobId = useArbor((state) => (state.jobChangesOpen ? state.tree.jobId : null))
  if (!jobId) return null
  return (
    <div className="job-changes" role="dialog" aria-label="The job's changes" data-testid="job-changes-drawer">
      <div className="job-changes__head">
        <span className="prompt-edit__title">Changes of the whole job</span>
        <button className="icon-button" aria-label="Close changes" onClick={() => useArbor.getState().openJobChanges(false)}>
          ×
        </button>
      </div>
      <ChangesPanel jobId={jobId} />
    </div>
  )
}
