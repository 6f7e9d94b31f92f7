import type { Transport } from '../api/transport'
import { useArbor } from '../store'
import { browserScheduler, createEventBatcher } from './event-batcher'

/**
 * Subscribes once to the engine's notifications and feeds them to the store in per-frame
 * batches; on a reconnect, fetches everything again.
 */
export function connectLive(transport: Transport): () => void {
  const batcher = createEventBatcher((events) => useArbor.getState().applyEventBatch(events), browserScheduler)
  const unsubscribe = transport.api.subscribe((notification) => {
    if (notification.kind !== 'events') return
    batcher.push(notification.events)
  })
  const stopWatching = transport.onConnectionChange((connected, reconnected) => {
    useArbor.getState().setConnected(connected)
    if (reconnected) {
      batcher.flush()
      useArbor.getState().refreshAll()
    }
  })
  return () => {
    unsubscribe()
    stopWatching()
  }
}
