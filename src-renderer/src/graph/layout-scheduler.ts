import type { LayoutOptions, TreeLayout } from './layout'
import { runLayoutRequest, type LayoutInput, type LayoutRequest, type LayoutResponse } from './layout-request'

/** The worker as the scheduler sees it: a Web Worker in the renderer, anything with the same shape in a test. */
export interface LayoutPort {
  postMessage(request: LayoutRequest): void
  onmessage: ((event: { data: LayoutResponse }) => void) | null
  onerror: ((event: unknown) => void) | null
  terminate(): void
}

export interface LayoutSchedulerOptions<Context> {
  options: LayoutOptions
  /** Trees up to this many drawn nodes are laid out at once, on the calling thread. */
  syncUpTo: number
  /** Makes the worker, when the first big tree comes; null when there is none (then every layout is synchronous). */
  createPort: () => LayoutPort | null
  /** A layout arrived from the worker, with the context its request was made with. */
  onLayout: (layout: TreeLayout, context: Context) => void
}

/**
 * Latest request wins. A small tree is laid out synchronously (`request` returns it). A big one
 * goes to the worker, one request at a time: a request made while one is out waits as the only
 * pending one, replacing any older pending one, and is sent when the answer comes. An answer
 * older than the newest layout handed out (a synchronous one made meanwhile, say) is dropped, so
 * the graph never shows a layout older than one it has shown, and each layout comes with the
 * context (the tree) it was computed from: nodes and positions always match.
 */
export class LayoutScheduler<Context> {
  private port: LayoutPort | null | undefined
  private nextId = 0
  /** The newest id handed out or shown. */
  private newest = 0
  private inFlight: { request: LayoutRequest; context: Context } | null = null
  private pending: { request: LayoutRequest; context: Context } | null = null

  constructor(private readonly settings: LayoutSchedulerOptions<Context>) {}

  /** The layout now for a small tree; null when the worker will deliver it through `onLayout`. */
  request(input: LayoutInput, context: Context, options: LayoutOptions = this.settings.options): TreeLayout | null {
    const request: LayoutRequest = { id: ++this.nextId, input, options }
    if (input.count <= this.settings.syncUpTo || this.worker() === null) {
      this.newest = request.id
      this.pending = null
      return runLayoutRequest(request).layout
    }
    this.pending = { request, context }
    if (!this.inFlight) this.sendPending()
    return null
  }

  private worker(): LayoutPort | null {
    if (this.port === undefined) {
      this.port = this.settings.createPort()
      if (this.port) {
        this.port.onmessage = (event) => this.answered(event.data)
        this.port.onerror = () => this.failed()
      }
    }
    return this.port
  }

  private sendPending(): void {
    this.inFlight = this.pending
    this.pending = null
    if (this.inFlight) this.port!.postMessage(this.inFlight.request)
  }

  private answered(response: LayoutResponse): void {
    const out = this.inFlight
    if (!out || out.request.id !== response.id) return
    this.inFlight = null
    if (response.id > this.newest) {
      this.newest = response.id
      this.settings.onLayout(response.layout, out.context)
    }
    this.sendPending()
  }

  /** The worker could not load or threw: from now on every layout is synchronous, the outstanding ones included. */
  private failed(): void {
    const outstanding = [this.inFlight, this.pending].filter((item) => item !== null)
    this.port?.terminate()
    this.port = null
    this.inFlight = null
    this.pending = null
    const latest = outstanding.at(-1)
    if (!latest || latest.request.id <= this.newest) return
    this.newest = latest.request.id
    this.settings.onLayout(runLayoutRequest(latest.request).layout, latest.context)
  }
}
