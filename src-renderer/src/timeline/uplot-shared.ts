import type uPlot from 'uplot'
import { formatSeconds, panRange, zoomRange, type TimeRange } from './time-range'

/** The time axis both charts draw: seconds from the job's start, in the app's muted text colour. */
export const xAxis = (): uPlot.Axis => ({
  stroke: '#8b93a0',
  font: '11px system-ui, sans-serif',
  size: 26,
  gap: 4,
  grid: { stroke: '#1d2127', width: 1 },
  ticks: { stroke: '#30353e', width: 1, size: 4 },
  values: (_u, splits) => splits.map(formatSeconds),
})

/**
 * Wheel zooms about the pointer; shift-wheel (or a sideways trackpad swipe) pans. Both stay inside
 * the job and go through `onRange`, so the Gantt and the plot move together.
 */
export function attachWheelZoom(plot: uPlot, range: () => TimeRange, extent: () => TimeRange, onRange: (range: TimeRange) => void): void {
  plot.over.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault()
      const current = range()
      const width = plot.over.clientWidth || 1
      const sideways = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)
      if (sideways) {
        const pixels = event.shiftKey && event.deltaX === 0 ? event.deltaY : event.deltaX
        onRange(panRange(current, extent(), (pixels / width) * (current.max - current.min)))
        return
      }
      const anchor = plot.posToVal(event.clientX - plot.over.getBoundingClientRect().left, 'x')
      onRange(zoomRange(current, extent(), anchor, Math.exp(event.deltaY * 0.0015)))
    },
    { passive: false },
  )
}
