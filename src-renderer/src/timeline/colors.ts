import type { BarKind } from '@core/trace/timeline'

/** The timeline's colours, shared by the canvas and the legend (the inspector's tones: model violet, tool blue). */
export const barColor: Record<BarKind, string> = {
  model: '#8b5cf6',
  tool: '#3b82f6',
  queued: '#7c8696',
  held: '#d97706',
  approval: '#f59e0b',
  rate_limit: '#ea580c',
  budget: '#a855f7',
}
export const failedColor = '#ef4444'
/** Waits are hatched, so they read as "not working" beside solid work bars. */
export const hatchedKinds: ReadonlySet<BarKind> = new Set(['queued', 'held', 'approval', 'rate_limit', 'budget'])
export const barName: Record<BarKind, string> = {
  model: 'model call',
  tool: 'tool call',
  queued: 'queued',
  held: 'held',
  approval: 'waiting approval',
  rate_limit: 'rate limited',
  budget: 'paused: budget',
}

export const lifelineColor = (status: string): string =>
  status === 'running'
    ? '#3b82f6'
    : status === 'completed'
      ? '#22c55e'
      : status === 'waiting'
        ? '#5b6472'
        : status === 'partial'
          ? '#14b8a6'
          : status === 'cancelled'
            ? '#6b7280'
            : '#ef4444'

/** Bands of the usage plot, bottom first; opaque, because each band is painted over the one above it. */
export const bandColors = ['#6e79e0', '#22a06b', '#d97706', '#0ea5b7', '#c0508a', '#8b5cf6', '#84a83b', '#5b6472']

export const linkColor = 'rgba(160, 168, 181, 0.55)'
export const markerColor = '#f472b6'
