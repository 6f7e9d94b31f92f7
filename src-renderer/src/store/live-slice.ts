import { rootAnswersIn } from '@core/trace/answer'
import { applyAttentionEvents } from './attention-events'
import { applyInspectorEvents } from './inspector-events'
import { applyJobEvents } from './jobs-events'
import { applyTimelineEvents } from './timeline-slice'
import { applyTreeEvents } from './tree-events'
import type { LiveSlice, SliceCreator } from './types'

export const createLiveSlice: SliceCreator<LiveSlice> = (set, get) => ({
  applyEventBatch(events) {
    if (events.length === 0) return
    const state = get()
    const jobs = applyJobEvents(state.jobs, events)
    const attention = applyAttentionEvents(state, events)
    const answers = rootAnswersIn(events)
    set({
      ...(Object.keys(answers).length === 0 ? {} : { answers: { ...state.answers, ...answers } }),
      jobs: jobs.jobs,
      tree: applyTreeEvents(state.tree, events),
      inspectors: applyInspectorEvents(state.inspectors, events),
      timeline: applyTimelineEvents(state.timeline, events),
      waiting: attention.waiting,
      budgetWarnings: attention.budgetWarnings,
      ...(jobs.allPaused === null ? {} : { allPaused: jobs.allPaused }),
    })
    if (jobs.unknownJobStarted) void state.loadJobs()
    // A file changed in the shown job: the badges and any open Changes view fetch again.
    const jobId = state.changeCounts.jobId
    if (jobId !== null && events.some((event) => event.type === 'file.change' && event.job_id === jobId)) void state.loadChangeCounts(jobId)
  },

  refreshAll() {
    const state = get()
    void state.loadState()
    void state.loadJobs()
    if (state.selectedJobId) void state.loadTree(state.selectedJobId)
    if (state.timeline.jobId) void state.loadTimeline(state.timeline.jobId)
    state.reloadInspectors()
  },
})
