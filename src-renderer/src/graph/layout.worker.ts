/**
 * The layout worker: lays out a big tree off the main thread (layout-scheduler.ts sends it the
 * requests). One request at a time comes in; each is answered with its own id.
 */
import { runLayoutRequest, type LayoutRequest } from './layout-request'

const scope = globalThis as unknown as {
  onmessage: ((event: { data: LayoutRequest }) => void) | null
  postMessage(message: unknown): void
}

scope.onmessage = (event) => scope.postMessage(runLayoutRequest(event.data))
