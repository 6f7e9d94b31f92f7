import uPlot from 'uplot'
import type { Timeline, TimelineBar } from '@core/trace/timeline'
import { barColor, failedColor, hatchedKinds, lifelineColor, linkColor, markerColor } from './colors'
import type { TimeRange } from './time-range'
import { attachWheelZoom, xAxis } from './uplot-shared'

export const rowHeight = 22
/** Lane labels on the left; the usage plot's gutter is as wide, so both charts share one x. */
export const laneGutter = 200
/** The chart starts this far left of the gutter's edge, so the axis's "0s" is not cut off; its plotting area still starts at laneGutter. */
export const chartPadLeft = 14

export interface GanttCallbacks {
  /** The user zoomed or panned (drag-select, wheel, double-click). */
  onRange(range: TimeRange): void
  onPick(bar: TimelineBar): void
  onHover(hit: { bar: TimelineBar; lane: string; left: number; top: number } | null): void
  extent(): TimeRange
}

/**
 * The Gantt: uPlot owns the x scale, the time axis, the cursor, drag-to-zoom and the shared
 * cursor sync with the usage plot; the lanes are painted in its `draw` hook, as uPlot's timeline
 * demos do, but straight from the timeline model instead of one series per lane (a series per
 * agent would not survive 2,000 agents). Only the lanes in view are painted; the lane list
 * scrolls natively and tells the chart its scroll offset.
 */
export class GanttChart {
  private readonly plot: uPlot
  private timeline: Timeline | null = null
  private lanes: string[] = []
  private laneIndex = new Map<string, number>()
  private now: number | null = null
  private scrollTop = 0
  private marker: number | null = null
  private patterns = new Map<string, CanvasPattern | null>()
  private pressedAt: { x: number; y: number } | null = null

  constructor(
    host: HTMLElement,
    size: { width: number; height: number },
    private readonly callbacks: GanttCallbacks,
  ) {
    const options: uPlot.Options = {
      ...size,
      padding: [0, 12, 0, chartPadLeft],
      legend: { show: false },
      scales: { x: { time: false, auto: false }, y: { auto: false, range: [0, 1] } },
      axes: [xAxis(), { show: false }],
      series: [{}, { show: false }],
      cursor: {
        y: false,
        points: { show: false },
        drag: { x: true, y: false, setScale: false },
        sync: { key: 'arbor-timeline' },
      },
      hooks: {
        draw: [() => this.draw()],
        setSelect: [(u) => this.onSelect(u)],
        setCursor: [(u) => this.onCursor(u)],
      },
    }
    this.plot = new uPlot(
      options,
      [
        [0, 1],
        [null, null],
      ],
      host,
    )
    attachWheelZoom(this.plot, () => this.currentRange(), callbacks.extent, callbacks.onRange)
    const over = this.plot.over
    over.addEventListener('mousedown', (event) => (this.pressedAt = { x: event.clientX, y: event.clientY }))
    over.addEventListener('click', (event) => this.onClick(event))
    over.addEventListener('dblclick', () => callbacks.onRange(callbacks.extent()))
    over.addEventListener('mouseleave', () => callbacks.onHover(null))
  }

  setData(timeline: Timeline, lanes: string[], now: number | null): void {
    this.timeline = timeline
    if (lanes !== this.lanes) {
      this.lanes = lanes
      this.laneIndex = new Map(lanes.map((id, index) => [id, index]))
    }
    this.now = now
    this.plot.redraw(false, false)
  }

  setRange(range: TimeRange): void {
    const current = this.currentRange()
    if (Math.abs(current.min - range.min) < 1e-9 && Math.abs(current.max - range.max) < 1e-9) return
    this.plot.setData(
      [
        [range.min, range.max],
        [null, null],
      ],
      false,
    )
    this.plot.setScale('x', range)
  }

  setScroll(scrollTop: number): void {
    this.scrollTop = scrollTop
    this.plot.redraw(false, false)
  }

  setMarker(seconds: number | null): void {
    if (seconds === this.marker) return
    this.marker = seconds
    this.plot.redraw(false, false)
  }

  setSize(size: { width: number; height: number }): void {
    if (size.width > 0 && size.height > 0) this.plot.setSize(size)
  }

  /** Where the plotting area is, in CSS pixels of the chart: the e2e clicks bars through it. */
  plotBox(): { left: number; top: number; width: number; height: number } {
    const { left, top, width, height } = this.plot.bbox
    const ratio = uPlot.pxRatio
    return { left: left / ratio, top: top / ratio, width: width / ratio, height: height / ratio }
  }

  destroy(): void {
    this.plot.destroy()
  }

  private currentRange(): TimeRange {
    const scale = this.plot.scales.x!
    return { min: scale.min ?? 0, max: scale.max ?? 1 }
  }

  private onSelect(u: uPlot): void {
    const { left, width } = u.select
    if (width < 4) return
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
    this.callbacks.onRange({ min: u.posToVal(left, 'x'), max: u.posToVal(left + width, 'x') })
  }

  private onCursor(u: uPlot): void {
    const { left, top } = u.cursor
    if (left === undefined || top === undefined || left < 0) return this.callbacks.onHover(null)
    const hit = this.pick(left, top)
    this.callbacks.onHover(hit ? { ...hit, left, top } : null)
  }

  private onClick(event: MouseEvent): void {
    const pressed = this.pressedAt
    this.pressedAt = null
    // A drag that selected a range is a zoom, not a click on a bar.
    if (pressed && Math.hypot(event.clientX - pressed.x, event.clientY - pressed.y) > 3) return
    const { left, top } = this.plot.cursor
    if (left === undefined || top === undefined) return
    const hit = this.pick(left, top)
    if (hit) this.callbacks.onPick(hit.bar)
  }

  /** The bar under a point of the plotting area (CSS pixels): the topmost one drawn, within 3 px. */
  private pick(left: number, top: number): { bar: TimelineBar; lane: string } | null {
    const timeline = this.timeline
    if (!timeline) return null
    const lane = this.lanes[Math.floor((top + this.scrollTop) / rowHeight)]
    const bars = lane ? timeline.bars[lane] : undefined
    if (!lane || !bars) return null
    const slack = 3 / Math.max(1, this.plot.bbox.width / uPlot.pxRatio)
    const span = this.currentRange()
    const at = this.plot.posToVal(left, 'x')
    const tolerance = slack * (span.max - span.min)
    const end = this.openEnd(timeline)
    let found: TimelineBar | null = null
    for (const bar of bars) {
      const from = this.seconds(timeline, bar.start_ms)
      const to = this.seconds(timeline, bar.end_ms ?? end)
      if (at < from - tolerance || at > to + tolerance) continue
      // Model and tool bars are drawn over waits: prefer them.
      if (!found || hatchedKinds.has(found.kind) || (bar.kind === 'tool' && found.kind === 'model')) found = bar
    }
    return found ? { bar: found, lane } : null
  }

  private seconds(timeline: Timeline, ms: number): number {
    return (ms - (timeline.start_ms ?? 0)) / 1000
  }

  private openEnd(timeline: Timeline): number {
    return timeline.end_ms ?? Math.max(timeline.last_ms, this.now ?? 0)
  }

  private draw(): void {
    const timeline = this.timeline
    if (!timeline) return
    const u = this.plot
    const ctx = u.ctx
    const ratio = uPlot.pxRatio
    const box = u.bbox
    const row = rowHeight * ratio
    const first = Math.max(0, Math.floor(this.scrollTop / rowHeight))
    const last = Math.min(this.lanes.length - 1, Math.ceil((this.scrollTop + box.height / ratio) / rowHeight))
    const rowTop = (index: number) => box.top + (index * rowHeight - this.scrollTop) * ratio
    const x = (ms: number) => u.valToPos(this.seconds(timeline, ms), 'x', true)
    const openEnd = this.openEnd(timeline)
    const left = box.left
    const right = box.left + box.width

    ctx.save()
    ctx.beginPath()
    ctx.rect(box.left, box.top, box.width, box.height)
    ctx.clip()
    for (let index = first; index <= last; index++) {
      const id = this.lanes[index]!
      const lane = timeline.lanes[id]
      if (!lane) continue
      const top = rowTop(index)
      if (index % 2 === 1) {
        ctx.fillStyle = 'rgba(255, 255, 255, 0.025)'
        ctx.fillRect(box.left, top, box.width, row)
      }
      // The agent's life: a thin line from where its lane begins to its end (or now).
      const lifeFrom = Math.max(left, x(lane.first_ms))
      const lifeTo = Math.min(right, x(lane.end_ms ?? openEnd))
      if (lifeTo > lifeFrom) {
        ctx.fillStyle = lifelineColor(lane.status)
        ctx.globalAlpha = 0.55
        ctx.fillRect(lifeFrom, top + row / 2 - ratio, lifeTo - lifeFrom, 2 * ratio)
        ctx.globalAlpha = 1
      }
      for (const bar of timeline.bars[id] ?? []) {
        const from = x(bar.start_ms)
        const to = x(bar.end_ms ?? openEnd)
        if (to < left || from > right) continue
        const inset = (bar.kind === 'tool' ? 7 : 4) * ratio
        const width = Math.max(2 * ratio, to - from)
        ctx.fillStyle = hatchedKinds.has(bar.kind) ? this.hatch(ctx, barColor[bar.kind]) : bar.failed ? failedColor : barColor[bar.kind]
        ctx.fillRect(from, top + inset, width, row - 2 * inset)
        if (bar.failed && hatchedKinds.has(bar.kind)) {
          ctx.strokeStyle = failedColor
          ctx.lineWidth = ratio
          ctx.strokeRect(from, top + inset, width, row - 2 * inset)
        }
      }
    }
    this.drawLinks(ctx, timeline, rowTop, x, row, first, last)
    if (this.marker !== null) {
      const at = u.valToPos(this.marker, 'x', true)
      ctx.fillStyle = markerColor
      ctx.fillRect(at - ratio, box.top, 2 * ratio, box.height)
    }
    ctx.restore()
  }

  /** Parent → child at the `task` call: down from the parent's lane, then across to where the child's lane begins. */
  private drawLinks(
    ctx: CanvasRenderingContext2D,
    timeline: Timeline,
    rowTop: (index: number) => number,
    x: (ms: number) => number,
    row: number,
    first: number,
    last: number,
  ): void {
    const ratio = uPlot.pxRatio
    ctx.strokeStyle = linkColor
    ctx.fillStyle = linkColor
    ctx.lineWidth = ratio
    ctx.beginPath()
    for (const link of timeline.links) {
      const from = this.laneIndex.get(link.parent_id)
      const to = this.laneIndex.get(link.child_id)
      const child = timeline.lanes[link.child_id]
      if (from === undefined || to === undefined || !child) continue
      if (Math.max(from, to) < first || Math.min(from, to) > last) continue
      const startX = x(link.at_ms)
      const endX = x(child.first_ms)
      const startY = rowTop(from) + row / 2
      const endY = rowTop(to) + row / 2
      ctx.moveTo(startX, startY)
      ctx.lineTo(startX, endY)
      ctx.lineTo(endX, endY)
      ctx.moveTo(endX + 3 * ratio, endY)
      ctx.arc(endX, endY, 3 * ratio, 0, 2 * Math.PI)
    }
    ctx.stroke()
  }

  /** Diagonal stripes of one colour, made once per colour. */
  private hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
    if (!this.patterns.has(color)) {
      const size = Math.round(6 * uPlot.pxRatio)
      const tile = document.createElement('canvas')
      tile.width = size
      tile.height = size
      const paint = tile.getContext('2d')
      if (paint) {
        paint.fillStyle = `${color}40`
        paint.fillRect(0, 0, size, size)
        paint.strokeStyle = color
        paint.lineWidth = Math.max(1, size / 4)
        paint.beginPath()
        paint.moveTo(0, size)
        paint.lineTo(size, 0)
        paint.moveTo(-size / 2, size / 2)
        paint.lineTo(size / 2, -size / 2)
        paint.moveTo(size / 2, size * 1.5)
        paint.lineTo(size * 1.5, size / 2)
        paint.stroke()
      }
      this.patterns.set(color, paint ? ctx.createPattern(tile, 'repeat') : null)
    }
    return this.patterns.get(color) ?? color
  }
}
