import { timelineEnd, type Timeline } from '@core/trace/timeline'

/** A visible span of the job, in seconds from its start: the x scale both charts share. */
export interface TimeRange {
  min: number
  max: number
}

/** Never zoom in past this: a model call of a few milliseconds is still a visible bar. */
export const minSpanSeconds = 0.05

/** The whole job in seconds: to its end, else its newest event (or now, while it runs); at least one second. */
export function jobExtent(timeline: Timeline, now?: number): TimeRange {
  const start = timeline.start_ms ?? 0
  return { min: 0, max: Math.max(1, (timelineEnd(timeline, now) - start) / 1000) }
}

const clampInto = (range: TimeRange, extent: TimeRange): TimeRange => {
  const span = Math.min(range.max - range.min, extent.max - extent.min)
  const min = Math.max(extent.min, Math.min(range.min, extent.max - span))
  return { min, max: min + span }
}

/** Zooms about `anchor` (a time under the pointer) by `factor` (< 1 zooms in), inside the job. */
export function zoomRange(range: TimeRange, extent: TimeRange, anchor: number, factor: number): TimeRange {
  const span = Math.max(minSpanSeconds, Math.min(extent.max - extent.min, (range.max - range.min) * factor))
  const share = range.max > range.min ? (anchor - range.min) / (range.max - range.min) : 0.5
  return clampInto({ min: anchor - share * span, max: anchor - share * span + span }, extent)
}

/** Moves the range by `delta` seconds, stopping at the job's ends. */
export const panRange = (range: TimeRange, extent: TimeRange, delta: number): TimeRange =>
  clampInto({ min: range.min + delta, max: range.max + delta }, extent)

/** Covers (nearly) the whole job: the same as no zoom, so the view keeps growing with a live job. */
export const isWholeJob = (range: TimeRange, extent: TimeRange): boolean =>
  range.min <= extent.min + 1e-6 && range.max >= extent.max - (extent.max - extent.min) * 1e-3

/** "850ms", "12.5s", "3m05s": times on the axes and in tooltips, from the job's start. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return ''
  const sign = seconds < 0 ? '-' : ''
  const value = Math.abs(seconds)
  if (value === 0) return '0s'
  if (value < 1) return `${sign}${Math.round(value * 1000)}ms`
  if (value < 60) return `${sign}${Number(value.toFixed(value < 10 ? 2 : 1))}s`
  const minutes = Math.floor(value / 60)
  return `${sign}${minutes}m${String(Math.round(value % 60)).padStart(2, '0')}s`
}
