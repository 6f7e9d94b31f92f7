import { getNodesBounds, useReactFlow, useStore, type ReactFlowState } from '@xyflow/react'
import { useEffect, useRef } from 'react'
import { useArbor, type ArborState } from '../store'
import { fit, fitViewport } from './fit-viewport'

const selectRequest = (state: ArborState) => state.fitViewRequest
const selectPane = (state: ReactFlowState) => ({ width: state.width, height: state.height, minZoom: state.minZoom })

/** Fits the view, as the graph fits it on growth, whenever the store's fitViewRequest counter moves (the `f` shortcut). Inside the ReactFlow provider. */
export function FitOnRequest() {
  const { getNodes, setViewport } = useReactFlow()
  const pane = useStore(selectPane, (a, b) => a.width === b.width && a.height === b.height && a.minZoom === b.minZoom)
  const request = useArbor(selectRequest)
  const seen = useRef(request)
  useEffect(() => {
    if (request === seen.current) return
    seen.current = request
    const nodes = getNodes()
    if (nodes.length === 0 || pane.width === 0 || pane.height === 0) return
    void setViewport(fitViewport(getNodesBounds(nodes), pane.width, pane.height, pane.minZoom), { duration: fit.duration })
  }, [request, getNodes, setViewport, pane])
  return null
}
