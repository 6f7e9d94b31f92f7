import { useReactFlow, useStore, type ReactFlowState } from '@xyflow/react'
import { useEffect, useRef } from 'react'

const selectPaneWidth = (state: ReactFlowState) => state.width

/**
 * Fits the view when agents are added, when another job is shown, and when the pane changes
 * width (the inspector dock opening or closing).
 */
export function FitOnGrowth({ count, jobId }: { count: number; jobId: string | null }) {
  const { fitView } = useReactFlow()
  const width = useStore(selectPaneWidth)
  const seen = useRef({ count: 0, jobId: null as string | null, width: 0 })
  useEffect(() => {
    const last = seen.current
    const changed = count > last.count || jobId !== last.jobId || width !== last.width
    seen.current = { count, jobId, width }
    if (!changed || count === 0 || width === 0) return
    const frame = requestAnimationFrame(() => void fitView({ padding: 0.12, maxZoom: 1, duration: 200 }))
    return () => cancelAnimationFrame(frame)
  }, [count, jobId, width, fitView])
  return null
}
