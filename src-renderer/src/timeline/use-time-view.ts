import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { jobExtent, type TimeRange } from './time-range'

const selectView = (state: ArborState) => {
  const job = state.timeline.jobId ? state.jobs[state.timeline.jobId] : undefined
  const replay = state.replay?.cursor ? state.replay : null
  const start = state.timeline.model?.start_ms ?? 0
  return {
    model: state.timeline.model,
    revision: state.timeline.revision,
    laneOrder: state.timeline.laneOrder,
    loading: state.timeline.loading,
    error: state.timeline.error,
    timeRange: state.timeRange,
    running: job?.status === 'running' && !job.imported,
    marker: replay ? (replay.atMs - start) / 1000 : null,
  }
}

/** While the job runs, the time once a second, so open bars and the axis grow between events. */
function useNow(running: boolean): number | null {
  const [now, setNow] = useState<number | null>(running ? Date.now() : null)
  useEffect(() => {
    if (!running) return setNow(null)
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [running])
  return now
}

/** What both charts read: the selected job's timeline, the whole job's span, and the range shown. */
export function useTimeView() {
  const view = useArbor(useShallow(selectView))
  const now = useNow(view.running)
  const extent: TimeRange | null = view.model ? jobExtent(view.model, now ?? undefined) : null
  const range = view.timeRange ?? extent
  return { ...view, now, extent, range }
}
