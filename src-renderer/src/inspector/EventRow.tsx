import { memo, type ReactNode } from 'react'
import type { TraceEvent } from '@core/trace/events'
import { envelopesOfDelivery } from '@core/trace/background-results'
import { formatTime, shortId } from '../util/format'
import { EnvelopeCard, envelopeOfEnd } from './EnvelopeCard'
import { asText, LongText } from './LongText'
import { describeEvent } from './describe-event'

/** One event of an agent's trace, compact: a summary line and, where useful, a body; `highlighted` when a timeline bar asked for it. */
function EventRowView({ event, highlighted = false }: { event: TraceEvent; highlighted?: boolean }) {
  const { title, summary, tone } = describeEvent(event)
  return (
    <div
      className={`event-row tone-${tone}${highlighted ? ' highlighted' : ''}`}
      data-testid="inspector-event"
      data-type={event.type}
      data-seq={event.seq}
      data-highlighted={highlighted ? 'true' : undefined}
    >
      <div className="event-row__head">
        <span className="event-row__type">{title}</span>
        <span className="event-row__summary" title={summary}>
          {summary}
        </span>
        <span className="event-row__time" title={`seq ${event.seq} · ${event.ts}`}>
          {formatTime(event.ts)}
        </span>
      </div>
      {eventBody(event)}
    </div>
  )
}

function eventBody(event: TraceEvent): ReactNode {
  switch (event.type) {
    case 'message': {
      const { content, role, tool_calls } = event.data
      // Background results read as the envelopes they carry, each a card, rather than as JSON.
      const delivered = event.data.background_results ? envelopesOfDelivery(content) : null
      if (delivered) {
        return (
          <div className="event-row__envelopes" data-testid="background-results">
            {delivered.map((envelope) => (
              <div key={envelope.agent_id}>
                <div className="muted small" title={envelope.agent_id}>
                  {envelope.profile} · {shortId(envelope.agent_id)}
                </div>
                <EnvelopeCard envelope={envelope} />
              </div>
            ))}
          </div>
        )
      }
      return (
        <>
          <LongText text={content} className={`role-${role}`} />
          {tool_calls && tool_calls.length > 0 && (
            <div className="event-row__chips">
              {tool_calls.map((call, index) => (
                <span className="chip" key={index}>
                  {call.name}
                </span>
              ))}
            </div>
          )}
        </>
      )
    }
    case 'tool.call':
      return <LongText text={asText(event.data.arguments)} limit={400} />
    case 'tool.result':
      return <LongText text={event.data.output} limit={400} className={event.data.ok ? '' : 'error'} />
    case 'agent.start':
    case 'subagent.request':
      return <LongText text={event.data.task} limit={300} />
    case 'agent.end':
      return <EnvelopeCard envelope={envelopeOfEnd(event.data)} />
    case 'subagent.end':
      return <EnvelopeCard envelope={event.data.envelope} />
    case 'approval.request':
      return <LongText text={event.data.command} limit={300} />
    case 'control':
      // A held spawn's new prompt, and the one it replaced.
      if (event.data.action !== 'edit_spawn') return null
      return (
        <>
          <LongText text={asText(event.data.value)} limit={300} />
          {event.data.previous && <LongText text={`was: ${event.data.previous}`} limit={200} className="muted" />}
        </>
      )
    case 'error':
    case 'context.compact':
    case 'budget.warning':
      return <LongText text={asText(event.data)} limit={300} />
    default:
      return null
  }
}

export const EventRow = memo(EventRowView)
