import { useReactFlow } from '@xyflow/react'
import { useEffect, useRef } from 'react'
import { useArbor, type ArborState } from '../store'

const selectRequest = (state: ArborState) => state.fitViewRequest

/** Fits the view whenever the store's fitViewRequest counter moves (the `f` shortcut). Inside the ReactFlow provider. */
export function FitOnRequest() {
  const { fitView } = useReactFlow()
  const request = useArbor(selectRequest)
  const seen = useRef(request)
  useEffect(() => {
    if (request === seen.current) return
    seen.current = request
    void fitView({ padding: 0.12, maxZoom: 1, duration: 200 })
  }, [request, fitView])
  return null
}
