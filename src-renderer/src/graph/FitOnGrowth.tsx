import { useReactFlow, useStore, type ReactFlowState, type Rect } from '@xyflow/react'
import { useEffect, useRef, type MutableRefObject } from 'react'
import { fit, fitViewport } from './fit-viewport'

const selectPaneWidth = (state: ReactFlowState) => state.width
const selectPaneHeight = (state: ReactFlowState) => state.height
const selectMinZoom = (state: ReactFlowState) => state.minZoom

/** What a fit was made for: a change of any part makes the next one due. */
export const fitKey = (count: number, jobId: string | null, width: number, height: number): string => `${jobId}:${count}:${width}x${height}`

/**
 * Fits the view when the number of drawn nodes changes (agents added; a subtree or a fan-out
 * collapsed or expanded), when another job is shown, and when the pane changes size (the
 * inspector dock opening or closing, the approvals panel or the usage plot above it): at once the first time, then in a short
 * animation. It fits the tree's layout rather than the nodes xyflow holds: while a burst of new
 * nodes is revealed slice by slice, those are only a part of it. `fitted` holds the key of the
 * last fit (fitKey), for the graph to tell whether one is still due.
 */
export function FitOnGrowth({
  count,
  jobId,
  bounds,
  fitted,
}: {
  count: number
  jobId: string | null
  bounds: Rect
  fitted: MutableRefObject<string>
}) {
  const { setViewport } = useReactFlow()
  const width = useStore(selectPaneWidth)
  const height = useStore(selectPaneHeight)
  const minZoom = useStore(selectMinZoom)
  const seen = useRef({ count: 0, jobId: null as string | null, width: 0, height: 0 })
  useEffect(() => {
    const last = seen.current
    const first = last.count === 0 || last.width === 0 || jobId !== last.jobId
    const changed = count !== last.count || jobId !== last.jobId || width !== last.width || height !== last.height
    if (count === 0 || width === 0 || height === 0) return
    seen.current = { count, jobId, width, height }
    fitted.current = fitKey(count, jobId, width, height)
    if (!changed) return
    // Bounds and zoom limit of this same render: read when a fit is due, not watched.
    void setViewport(fitViewport(bounds, width, height, minZoom), { duration: first ? 0 : fit.duration })
  }, [count, jobId, width, height, setViewport, fitted])
  return null
}
