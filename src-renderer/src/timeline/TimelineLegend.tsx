import type { BarKind } from '@core/trace/timeline'
import { useArbor } from '../store'
import { barColor, barName, failedColor, hatchedKinds } from './colors'

const kinds: BarKind[] = ['model', 'tool', 'queued', 'held', 'approval', 'rate_limit', 'budget']

const swatchStyle = (kind: BarKind) =>
  hatchedKinds.has(kind)
    ? { background: `repeating-linear-gradient(135deg, ${barColor[kind]} 0 2px, ${barColor[kind]}40 2px 5px)` }
    : { background: barColor[kind] }

/** What the colours mean, how to zoom, and the way back to the whole job. */
export function TimelineLegend({ zoomed }: { zoomed: boolean }) {
  return (
    <div className="timeline__legend" data-testid="timeline-legend">
      {kinds.map((kind) => (
        <span key={kind} className="timeline__key" data-kind={kind}>
          <span className="timeline__swatch" style={swatchStyle(kind)} />
          {barName[kind]}
        </span>
      ))}
      <span className="timeline__key">
        <span className="timeline__swatch" style={{ background: failedColor }} />
        failed / denied
      </span>
      <span className="timeline__key">
        <span className="timeline__swatch link" />
        spawn
      </span>
      <span className="timeline__spacer" />
      <span className="timeline__hint">wheel zoom · shift-wheel pan · drag to select · double-click resets</span>
      <button
        className="button small"
        data-testid="timeline-reset"
        disabled={!zoomed}
        onClick={() => useArbor.getState().setTimeRange(null)}
      >
        Reset zoom
      </button>
    </div>
  )
}
