import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { GraphView } from '../graph/GraphView'
import { useArbor, type ArborState } from '../store'
import type { CentreView } from '../store/types'
import { ReplayBar } from './ReplayBar'
import { TimelineView } from './TimelineView'
import { UsagePlot } from './UsagePlot'

const selectCentre = (state: ArborState) => {
  const job = state.selectedJobId ? state.jobs[state.selectedJobId] : undefined
  const view = state.centreView
  return {
    view,
    jobId: state.selectedJobId,
    plotOpen: state.plotOpen,
    timelineJob: state.timeline.jobId,
    replayJob: state.replay?.jobId ?? null,
    // A running job has no end to play back to: replay is for jobs that ended (and imported traces).
    canReplay: job !== undefined && (job.status !== 'running' || job.imported === true),
  }
}

const views: Array<[CentreView, string]> = [
  ['graph', 'Graph'],
  ['timeline', 'Timeline'],
]

/**
 * The centre of the project view: the graph or the timeline, the usage plot under either (its
 * time axis lines up with the timeline's, so under the Gantt both read as one chart), and the
 * replay scrubber while a job is played back.
 */
export function CentreViews() {
  const centre = useArbor(useShallow(selectCentre))
  const store = useArbor.getState()
  const needsTimeline = centre.view === 'timeline' || centre.plotOpen

  useEffect(() => {
    if (needsTimeline && centre.jobId && centre.timelineJob !== centre.jobId) void useArbor.getState().loadTimeline(centre.jobId)
  }, [needsTimeline, centre.jobId, centre.timelineJob])
  // Another job selected: its replay, if any, ends.
  useEffect(() => {
    if (centre.replayJob && centre.replayJob !== centre.jobId) useArbor.getState().stopReplay()
  }, [centre.replayJob, centre.jobId])

  return (
    <div className="centre-views">
      <div className="centre-tabs" role="tablist">
        {views.map(([view, label]) => (
          <button
            key={view}
            role="tab"
            aria-selected={centre.view === view}
            className={`centre-tabs__tab${centre.view === view ? ' active' : ''}`}
            data-testid={`view-${view}`}
            onClick={() => store.showCentre(view)}
          >
            {label}
          </button>
        ))}
        <span className="centre-tabs__spacer" />
        {centre.jobId && (
          <>
            <button
              className={`button small${centre.plotOpen ? ' active' : ''}`}
              data-testid="toggle-plot"
              aria-pressed={centre.plotOpen}
              title="Tokens and cost over time"
              onClick={() => store.togglePlot()}
            >
              {centre.plotOpen ? 'Hide usage' : 'Show usage'}
            </button>
            <button
              className="button small"
              data-testid="replay-start"
              disabled={!centre.canReplay || centre.replayJob === centre.jobId}
              title={centre.canReplay ? 'Play the job back on the graph' : 'Replay is for jobs that have ended'}
              onClick={() => {
                store.showCentre('graph')
                void store.startReplay()
              }}
            >
              Replay
            </button>
          </>
        )}
      </div>
      <div className="centre-views__main">{centre.view === 'graph' ? <GraphView /> : <TimelineView />}</div>
      {centre.plotOpen && centre.jobId && (
        <div className={`centre-views__plot${centre.view === 'timeline' ? ' fill' : ''}`}>
          <UsagePlot />
        </div>
      )}
      <ReplayBar />
    </div>
  )
}
