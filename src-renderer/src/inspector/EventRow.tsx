import { memo, type ReactNode } from 'react'
import type { TraceEvent } from '../../../src-main/core/trace/events'
import { formatTime } from '../util/format'
import { EnvelopeCard } from './EnvelopeCard'
import { asText, LongText } from './LongText'
import { describeEvent } from './describe-event'

/** One event of an agent's trace, compact: a summary line and, where useful, a body. */
function EventRowView({ event }: { event: TraceEvent }) {
  const { title, summary, tone } = describeEvent(event)
  return (
    <div className={`event-row tone-${tone}`} data-testid="inspector-event" data-type={event.type}>
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
  const data = event.data
  switch (event.type) {
    case 'message':
      return (
        <>
          <LongText text={asText(data.content)} className={`role-${String(data.role)}`} />
          {Array.isArray(data.tool_calls) && data.tool_calls.length > 0 && (
            <div className="event-row__chips">
              {data.tool_calls.map((call, index) => (
                <span className="chip" key={index}>
                  {toolCallName(call)}
                </span>
              ))}
            </div>
          )}
        </>
      )
    case 'tool.call':
      return <LongText text={asText(data.arguments)} limit={400} />
    case 'tool.result':
      return <LongText text={asText(data.output)} limit={400} className={data.ok === false ? 'error' : ''} />
    case 'agent.start':
    case 'subagent.request':
      return <LongText text={asText(data.task ?? data.prompt)} limit={300} />
    case 'agent.end':
      return <EnvelopeCard data={data} />
    case 'subagent.end':
      return <EnvelopeCard data={(data.envelope as Record<string, unknown> | undefined) ?? data} />
    case 'approval.request':
      return <LongText text={asText(data.command)} limit={300} />
    case 'error':
    case 'context.compact':
    case 'budget.warning':
      return <LongText text={asText(data)} limit={300} />
    default:
      return null
  }
}

function toolCallName(call: unknown): string {
  if (!call || typeof call !== 'object') return '?'
  const record = call as { name?: unknown; function?: { name?: unknown } }
  return String(record.name ?? record.function?.name ?? '?')
}

export const EventRow = memo(EventRowView)
