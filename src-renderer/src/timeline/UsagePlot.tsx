import 'uplot/dist/uPlot.min.css'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import uPlot from 'uplot'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { formatCost, formatTokens } from '../util/format'
import { bandColors, markerColor } from './colors'
import { laneGutter } from './gantt-chart'
import { isWholeJob, type TimeRange } from './time-range'
import { attachWheelZoom, xAxis } from './uplot-shared'
import { costLabel, usageStacks, type UsageStacks } from './usage-stacks'
import { useTimeView } from './use-time-view'

const axisSize = 52
const selectOptions = (state: ArborState) => ({ stackBy: state.stackBy, metric: state.plotMetric })
/** A live job's plot rebuilds its data at most this often: a batch per frame would rebuild 100,000 points per frame. */
const liveRebuildMs = 500

/** Cumulative tokens or cost of the job, stacked by agent or by profile, on the timeline's x. */
export function UsagePlot() {
  const view = useTimeView()
  const { stackBy, metric } = useArbor(useShallow(selectOptions))
  const host = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  const extentRef = useRef(view.extent)
  extentRef.current = view.extent
  const markerRef = useRef(view.marker)
  markerRef.current = view.marker
  const rangeRef = useRef(view.range)
  rangeRef.current = view.range
  const [size, setSize] = useState({ width: 0, height: 0 })
  const revision = useThrottled(view.revision, view.running ? liveRebuildMs : 0)
  const format = metric === 'tokens' ? formatTokens : formatCost

  const stacks: UsageStacks | null = useMemo(
    () => (view.model ? usageStacks(view.model, stackBy, metric, view.model.start_ms ?? 0) : null),
    [view.model, revision, stackBy, metric],
  )
  const sum = (field: 'unpriced' | 'calls') => (stacks?.stacks ?? []).reduce((all, band) => all + band[field], 0)
  const calls = sum('calls')
  const unpricedCalls = sum('unpriced')
  // No call had a price: there is no cost to draw, and an axis at $0 would make one up.
  const noPrice = metric === 'cost' && calls > 0 && unpricedCalls === calls

  useLayoutEffect(() => {
    const element = host.current
    if (!element) return
    const measure = () => setSize({ width: element.clientWidth, height: element.clientHeight })
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [stacks !== null, noPrice])

  // One uPlot per band set (bands change with the grouping); data updates reuse it.
  const bandKey = stacks ? `${metric}|${stacks.stacks.map((stack) => stack.key).join('|')}` : ''
  useEffect(() => {
    if (!host.current || !stacks || size.width === 0 || size.height === 0) return
    const bands = [...stacks.stacks].reverse()
    const options: uPlot.Options = {
      ...size,
      padding: [8, 12, 0, 0],
      legend: { show: false },
      scales: {
        x: { time: false, auto: false },
        y: { range: (_u, _min, max) => [0, Math.max(max, metric === 'tokens' ? 10 : 0.001) * 1.05] },
      },
      axes: [xAxis(), { ...xAxis(), size: axisSize, values: (_u, splits) => splits.map((value) => format(value)) }],
      series: [
        {},
        ...bands.map((band) => {
          const color = bandColors[stacks.stacks.indexOf(band) % bandColors.length]!
          // A running total only moves when a model call ends: steps, not slopes.
          return { label: band.label, stroke: color, fill: color, width: 1, points: { show: false }, paths: steppedPaths }
        }),
      ],
      cursor: { y: false, points: { show: false }, drag: { x: true, y: false, setScale: false }, sync: { key: 'arbor-timeline' } },
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 4) return
            const range = { min: u.posToVal(u.select.left, 'x'), max: u.posToVal(u.select.left + u.select.width, 'x') }
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
            setTimeRange(range)
          },
        ],
        draw: [(u) => drawMarker(u, markerRef.current)],
      },
    }
    const setTimeRange = (range: TimeRange) => {
      const whole = extentRef.current
      useArbor.getState().setTimeRange(whole && isWholeJob(range, whole) ? null : range)
    }
    const created = new uPlot(options, plotData(stacks, extentRef.current), host.current)
    const scale = () => ({ min: created.scales.x!.min ?? 0, max: created.scales.x!.max ?? 1 })
    attachWheelZoom(created, scale, () => extentRef.current ?? { min: 0, max: 1 }, setTimeRange)
    created.over.addEventListener('dblclick', () => useArbor.getState().setTimeRange(null))
    if (rangeRef.current) created.setScale('x', rangeRef.current)
    plot.current = created
    return () => {
      created.destroy()
      plot.current = null
    }
  }, [bandKey, size.width > 0 && size.height > 0, noPrice])

  useEffect(() => plot.current?.setSize(size), [size.width, size.height])
  useEffect(() => {
    if (!plot.current || !stacks) return
    plot.current.setData(plotData(stacks, view.extent), false)
    if (view.range) plot.current.setScale('x', view.range)
  }, [stacks, view.range?.min, view.range?.max])
  useEffect(() => plot.current?.redraw(false, false), [view.marker])

  if (!view.model) return null
  const total = stacks?.stacks.at(-1)?.top.at(-1) ?? 0
  // A call with no price has no cost: shown as such, never as $0.
  const shown = (value: number, unpriced: number, calls: number) =>
    metric === 'tokens' ? formatTokens(value) : costLabel(value, unpriced, calls, formatCost)
  const unpricedModel = metric === 'cost' ? stacks?.unpricedModels[0] : undefined
  return (
    <div
      className="usage-plot"
      data-testid="usage-plot"
      data-points={stacks?.xs.length ?? 0}
      data-bands={stacks?.stacks.length ?? 0}
      data-total={total}
    >
      <div className="usage-plot__gutter" style={{ width: laneGutter - axisSize }}>
        <div className="usage-plot__title">
          {metric === 'tokens' ? 'Tokens' : 'Cost'}{' '}
          <span className="usage-plot__total" data-testid="plot-total">
            {shown(total, unpricedCalls, calls)}
          </span>
        </div>
        {unpricedModel !== undefined && (
          <button
            type="button"
            className="link-button"
            data-testid="plot-add-price"
            title={`Calls to ${stacks!.unpricedModels.join(', ')} have no price, so their cost is unknown`}
            onClick={() => useArbor.getState().openSettings({ priceModel: unpricedModel })}
          >
            Add a price for {unpricedModel}
          </button>
        )}
        <Segmented
          testId="plot-metric"
          value={metric}
          options={[
            ['tokens', 'Tokens'],
            ['cost', 'Cost'],
          ]}
          onChange={(value) => useArbor.getState().setPlotMetric(value)}
        />
        <Segmented
          testId="plot-stack-by"
          value={stackBy}
          options={[
            ['agent', 'By agent'],
            ['profile', 'By profile'],
          ]}
          onChange={(value) => useArbor.getState().setStackBy(value)}
        />
        <ul className="usage-plot__bands" data-testid="plot-bands">
          {[...(stacks?.stacks ?? [])].reverse().map((band) => (
            <li key={band.key} title={band.label}>
              <span className="timeline__swatch" style={{ background: bandColors[stacks!.stacks.indexOf(band) % bandColors.length] }} />
              <span className="usage-plot__band-label">{band.label}</span>
              <span className="usage-plot__band-value">{shown(band.own.at(-1) ?? 0, band.unpriced, band.calls)}</span>
            </li>
          ))}
        </ul>
      </div>
      {noPrice ? (
        <div className="usage-plot__chart usage-plot__no-price" data-testid="plot-no-price">
          No call of this job had a price, so its cost is unknown. A price for {unpricedModel}, added in Settings, counts for the calls made
          after it.
        </div>
      ) : (
        <div className="usage-plot__chart" ref={host} />
      )}
    </div>
  )
}

const steppedPaths = uPlot.paths.stepped!({ align: 1 })

/**
 * uPlot's data: x, then each band's top edge, the top band first so the lower ones paint over
 * it; from zero at the job's start to the totals at its end (or now), so the bands span the axis.
 */
function plotData(stacks: UsageStacks, extent: TimeRange | null): uPlot.AlignedData {
  const end = Math.max(extent?.max ?? 0, stacks.xs.at(-1) ?? 0)
  const xs = [0, ...stacks.xs, end]
  const bands = [...stacks.stacks].reverse().map((band) => [0, ...band.top, band.top.at(-1) ?? 0])
  return [xs, ...bands]
}

function drawMarker(u: uPlot, marker: number | null): void {
  if (marker === null) return
  const ratio = uPlot.pxRatio
  const at = u.valToPos(marker, 'x', true)
  u.ctx.fillStyle = markerColor
  u.ctx.fillRect(at - ratio, u.bbox.top, 2 * ratio, u.bbox.height)
}

function Segmented<T extends string>({
  value,
  options,
  onChange,
  testId,
}: {
  value: T
  options: Array<[T, string]>
  onChange(value: T): void
  testId: string
}) {
  return (
    <div className="segmented" data-testid={testId}>
      {options.map(([option, label]) => (
        <button key={option} className={option === value ? 'active' : ''} aria-pressed={option === value} onClick={() => onChange(option)}>
          {label}
        </button>
      ))}
    </div>
  )
}

/** The value, but while it keeps changing only every `ms` (0: at once). */
function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    if (ms === 0) return setShown(value)
    const wait = last.current + ms - Date.now()
    if (wait <= 0) {
      last.current = Date.now()
      return setShown(value)
    }
    const timer = setTimeout(() => {
      last.current = Date.now()
      setShown(value)
    }, wait)
    return () => clearTimeout(timer)
  }, [value, ms])
  return shown
}
