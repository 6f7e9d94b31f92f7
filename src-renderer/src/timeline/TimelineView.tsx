import 'uplot/dist/uPlot.min.css'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { BarKind, Timeline, TimelineBar } from '@core/trace/timeline'
import { useArbor } from '../store'
import { formatDuration } from '../util/format'
import { barName, lifelineColor } from './colors'
import { chartPadLeft, GanttChart, laneGutter, rowHeight } from './gantt-chart'
import { TimelineLegend } from './TimelineLegend'
import { formatSeconds, isWholeJob, type TimeRange } from './time-range'
import { useTimeView } from './use-time-view'

const axisHeight = 26
const labelsWidth = laneGutter - chartPadLeft

interface Hover {
  bar: TimelineBar
  lane: string
  left: number
  top: number
  flip: boolean
}

/** The selected job as a Gantt: a lane per agent in tree order, bars for calls and waits; click a bar to open it in the inspector. */
export function TimelineView() {
  const view = useTimeView()
  const { model, laneOrder, extent, range } = view
  const body = useRef<HTMLDivElement>(null)
  const host = useRef<HTMLDivElement>(null)
  const chart = useRef<GanttChart | null>(null)
  const extentRef = useRef(extent)
  extentRef.current = extent
  // What a chart made after the first render must be given at once (effects below only see later changes).
  const latest = useRef({ model, laneOrder, now: view.now, range, marker: view.marker })
  latest.current = { model, laneOrder, now: view.now, range, marker: view.marker }
  const [viewport, setViewport] = useState({ width: 0, height: 0 })
  const [scrollTop, setScrollTop] = useState(0)
  const [hover, setHover] = useState<Hover | null>(null)
  const [box, setBox] = useState({ left: 0, top: 0, width: 0, height: 0 })

  useLayoutEffect(() => {
    const element = body.current
    if (!element) return
    const measure = () => setViewport({ width: Math.max(0, element.clientWidth - labelsWidth), height: element.clientHeight })
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [model !== null])
  // A few lanes: the chart ends below the last one, so its time axis sits under them, not at the bottom of the pane.
  const contentHeight = Math.max(laneOrder.length, 3) * rowHeight + axisHeight
  const size = viewport

  useEffect(() => {
    if (!host.current || !model || size.width === 0 || size.height === 0 || chart.current) return
    const setRange = (next: TimeRange) => {
      const whole = extentRef.current
      useArbor.getState().setTimeRange(whole && isWholeJob(next, whole) ? null : next)
    }
    chart.current = new GanttChart(host.current, size, {
      onRange: setRange,
      onPick: (bar) => useArbor.getState().inspectAt(bar.agent_id, bar.seq),
      onHover: (hit) => setHover(hit ? { ...hit, flip: hit.left > (chart.current?.plotBox().width ?? 0) - 360 } : null),
      extent: () => extentRef.current ?? { min: 0, max: 1 },
    })
    const initial = latest.current
    if (initial.model) chart.current.setData(initial.model, initial.laneOrder, initial.now)
    if (initial.range) chart.current.setRange(initial.range)
    chart.current.setMarker(initial.marker)
    setBox(chart.current.plotBox())
    return () => {
      chart.current?.destroy()
      chart.current = null
    }
  }, [model !== null, size.width > 0 && size.height > 0])

  useEffect(() => {
    if (!chart.current) return
    chart.current.setSize(size)
    setBox(chart.current.plotBox())
  }, [size.width, size.height])
  useEffect(() => {
    if (model) chart.current?.setData(model, laneOrder, view.now)
  }, [model, view.revision, laneOrder, view.now])
  useEffect(() => {
    if (range) chart.current?.setRange(range)
  }, [range?.min, range?.max])
  useEffect(() => chart.current?.setScroll(scrollTop), [scrollTop])
  useEffect(() => chart.current?.setMarker(view.marker), [view.marker])

  // Counted once per change of the timeline, for the pane's data attributes (what the e2e reads).
  const barCounts = useMemo(() => countBars(model, laneOrder), [model, view.revision, laneOrder])

  if (view.error) return <div className="timeline__empty error">Could not load the timeline: {view.error}</div>
  if (!model) return <div className="timeline__empty">{view.loading ? 'Loading timeline…' : 'Select a job to see its timeline.'}</div>

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - 2)
  const last = Math.min(laneOrder.length, first + Math.ceil(size.height / rowHeight) + 4)

  return (
    <div
      className="timeline"
      data-testid="timeline"
      data-lanes={laneOrder.length}
      data-bars={barCounts.all}
      data-queued={barCounts.queued}
      data-held={barCounts.held}
      data-approval={barCounts.approval}
      data-start-ms={model.start_ms ?? ''}
      data-x-min={range?.min.toFixed(3)}
      data-x-max={range?.max.toFixed(3)}
      data-plot-left={box.left}
      data-plot-width={box.width}
      data-row-height={rowHeight}
    >
      <TimelineLegend zoomed={view.timeRange !== null} />
      {/* As tall as its lanes, shrinking to the pane (then it scrolls): a few lanes leave the room to the plot. */}
      <div
        className="timeline__body"
        ref={body}
        style={{ height: contentHeight }}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      >
        <div className="timeline__viewport" style={{ height: size.height }}>
          <div className="timeline__labels" style={{ width: labelsWidth }}>
            {laneOrder.slice(first, last).map((id, offset) => {
              const lane = model.lanes[id]!
              return (
                <div
                  key={id}
                  className="timeline__lane"
                  data-testid="timeline-lane"
                  data-agent-id={id}
                  data-bars={model.bars[id]?.length ?? 0}
                  style={{ top: (first + offset) * rowHeight - scrollTop, paddingLeft: 8 + Math.min(lane.depth, 8) * 10 }}
                  title={`${lane.label} · ${lane.profile} · ${lane.status}`}
                  onClick={() => useArbor.getState().inspect(id)}
                >
                  <span className="timeline__dot" style={{ background: lifelineColor(lane.status) }} />
                  <span className="timeline__lane-label">{lane.label}</span>
                  <span className="timeline__lane-profile">{lane.profile}</span>
                </div>
              )
            })}
          </div>
          <div className="timeline__chart" ref={host} data-testid="timeline-chart" />
          {hover && (
            <BarTooltip hover={hover} startMs={model.start_ms ?? 0} openEndMs={model.end_ms ?? Math.max(model.last_ms, view.now ?? 0)} />
          )}
        </div>
        <div style={{ height: Math.max(0, contentHeight - size.height) }} />
      </div>
    </div>
  )
}

function countBars(model: Timeline | null, laneOrder: readonly string[]): Record<'all' | BarKind, number> {
  const counts = { all: 0, model: 0, tool: 0, queued: 0, held: 0, approval: 0, rate_limit: 0, budget: 0 }
  for (const id of laneOrder) {
    for (const bar of model?.bars[id] ?? []) {
      counts.all += 1
      counts[bar.kind] += 1
    }
  }
  return counts
}

function BarTooltip({ hover, startMs, openEndMs }: { hover: Hover; startMs: number; openEndMs: number }) {
  const { bar } = hover
  const end = bar.end_ms ?? openEndMs
  return (
    <div
      className="timeline__tooltip"
      data-testid="timeline-tooltip"
      // Near the right edge it opens to the left of the pointer.
      style={
        hover.flip
          ? { right: `calc(100% - ${laneGutter + hover.left - 12}px)`, top: hover.top + 8 }
          : { left: laneGutter + hover.left + 12, top: hover.top + 8 }
      }
    >
      <div className="timeline__tooltip-kind">
        {barName[bar.kind]}
        {bar.failed ? (bar.kind === 'approval' ? ' · denied' : bar.kind === 'model' ? ' · aborted' : ' · failed') : ''}
        {bar.end_ms === null ? ' · open' : ''}
      </div>
      <div className="timeline__tooltip-label">{bar.label}</div>
      <div className="timeline__tooltip-time">
        {formatSeconds((bar.start_ms - startMs) / 1000)} → {formatSeconds((end - startMs) / 1000)} ·{' '}
        {formatDuration(end - bar.start_ms) || '0ms'}
      </div>
    </div>
  )
}
