import { formatCost, formatDuration, formatTokens } from '../util/format'
import { asText, LongText } from './LongText'

const num = (value: unknown): number | null => (typeof value === 'number' ? value : null)

/** A result envelope (agent.end / subagent.end): status, summary, result and stats. */
export function EnvelopeCard({ data }: { data: Record<string, unknown> }) {
  const stats = (data.stats ?? {}) as Record<string, unknown>
  const usage = (data.usage ?? {}) as Record<string, unknown>
  const input = num(stats.input_tokens) ?? num(usage.input_tokens)
  const output = num(stats.output_tokens) ?? num(usage.output_tokens)
  const cost = num(stats.cost_usd) ?? num(data.cost_usd)
  const steps = num(stats.steps) ?? num(data.steps)
  const duration = num(stats.duration_ms) ?? num(data.duration_ms)
  const summary = typeof data.summary === 'string' ? data.summary : ''
  const result = asText(data.result)
  return (
    <div className={`envelope status-${String(data.status)}`}>
      <div className="envelope__stats">
        <span className={`badge status-${String(data.status)}`}>{String(data.status ?? '?')}</span>
        {data.terminal_reason !== undefined && <span>{String(data.terminal_reason)}</span>}
        {steps !== null && <span>{steps} steps</span>}
        {input !== null && <span>in {formatTokens(input)}</span>}
        {output !== null && <span>out {formatTokens(output)}</span>}
        {cost !== null && <span>{formatCost(cost)}</span>}
        {duration !== null && <span>{formatDuration(duration)}</span>}
      </div>
      {summary && summary !== result && <div className="envelope__summary">{summary}</div>}
      <LongText text={result} limit={500} />
    </div>
  )
}
