import type { EventData } from '@core/trace/events'
import { formatCost, formatDuration, formatTokens } from '../util/format'
import { asText, LongText } from './LongText'

/** What the card shows of a result: a child's envelope as its parent got it, or an agent's own end. */
type Envelope = EventData<'subagent.end'>['envelope']

/** An agent.end read as the envelope its parent gets (supervisor/runtime.ts buildEnvelope). */
export const envelopeOfEnd = (end: EventData<'agent.end'>, agentId = ''): Envelope => ({
  status: end.status,
  profile: '',
  agent_id: agentId,
  summary: end.summary,
  result: end.result,
  terminal_reason: end.terminal_reason,
  stats: {
    steps: end.steps,
    tool_calls: Object.values(end.tool_usage).reduce((sum, calls) => sum + calls, 0),
    input_tokens: end.usage.input_tokens,
    output_tokens: end.usage.output_tokens,
    cost_usd: end.cost_usd,
    model: null,
    duration_ms: end.duration_ms,
  },
  ...(end.wrapped_up ? { wrapped_up: true } : {}),
})

/** A result envelope (agent.end / subagent.end): status, summary, result and stats. */
export function EnvelopeCard({ envelope }: { envelope: Envelope }) {
  const { status, terminal_reason, summary, stats } = envelope
  const result = asText(envelope.result)
  return (
    <div className={`envelope status-${status}`}>
      <div className="envelope__stats">
        <span className={`badge status-${status}`}>{status}</span>
        <span>{terminal_reason}</span>
        {envelope.wrapped_up && <span data-testid="envelope-wrapped-up">wrapped up</span>}
        <span>{stats.steps} steps</span>
        <span>in {formatTokens(stats.input_tokens)}</span>
        <span>out {formatTokens(stats.output_tokens)}</span>
        {stats.cost_usd !== null && <span>{formatCost(stats.cost_usd)}</span>}
        <span>{formatDuration(stats.duration_ms)}</span>
      </div>
      {summary && summary !== result && <div className="envelope__summary">{summary}</div>}
      <LongText text={result} limit={500} />
    </div>
  )
}
