import type { TraceEvent } from '@core/trace/events'
import { foldTimeline, laneTreeOrder } from '@core/trace/timeline'
import { api } from './api-ref'
import { errorText } from './error-text'
import type { SliceCreator, TimelineSlice, TimelineState } from './types'

export const emptyTimelineState = (jobId: string | null = null, loading = false): TimelineState => ({
  jobId,
  loading,
  error: null,
  model: null,
  revision: 0,
  laneOrder: [],
  pending: [],
})

/** Folds a live batch into the loaded timeline (or queues it while loading); other jobs' events are skipped. */
export function applyTimelineEvents(state: TimelineState, events: readonly TraceEvent[]): TimelineState {
  if (state.jobId === null || (!state.loading && !state.model)) return state
  const mine = events.filter((event) => event.job_id === state.jobId)
  if (mine.length === 0) return state
  if (state.loading || !state.model) return { ...state, pending: [...state.pending, ...mine] }
  const before = state.model.last_seq
  const { lanesChanged } = foldTimeline(state.model, mine)
  if (state.model.last_seq === before) return state
  return { ...state, revision: state.revision + 1, laneOrder: lanesChanged ? laneTreeOrder(state.model) : state.laneOrder }
}

export const createTimelineSlice: SliceCreator<TimelineSlice> = (set, get) => ({
  timeline: emptyTimelineState(),
  centreView: 'graph',
  plotOpen: false,
  stackBy: 'agent',
  plotMetric: 'tokens',
  timeRange: null,

  async loadTimeline(jobId) {
    set({ timeline: emptyTimelineState(jobId, true), timeRange: null })
    try {
      const { timeline: model } = await api().getTimeline({ job_id: jobId })
      const current = get().timeline
      if (current.jobId !== jobId || !current.loading) return
      const loaded: TimelineState = { ...emptyTimelineState(jobId), model, laneOrder: laneTreeOrder(model) }
      set({ timeline: applyTimelineEvents(loaded, current.pending) })
    } catch (error) {
      if (get().timeline.jobId !== jobId) return
      set({ timeline: { ...emptyTimelineState(jobId), error: errorText(error) } })
    }
  },

  showCentre: (centreView) => set({ centreView }),
  togglePlot: () => set((state) => ({ plotOpen: !state.plotOpen })),
  setStackBy: (stackBy) => set({ stackBy }),
  setPlotMetric: (plotMetric) => set({ plotMetric }),
  setTimeRange: (timeRange) => set({ timeRange }),
})
