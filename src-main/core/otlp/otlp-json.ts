import { instrumentationScope, JobSpans, resourceAttributes, type Attributes, type SpanRecord } from './span-model'
import type { Job } from '../trace/model'
import type { ExportFormat } from '../store/export'
import type { EventRow } from '../store/rows'

/**
 * OTLP JSON (`resourceSpans`), so a trace opens in Jaeger, Langfuse or Phoenix: the spans of
 * otlp/span-model.ts in the OTLP/JSON encoding (hex ids, enums as numbers, 64-bit integers as
 * strings). Written as the events stream by: a span is written when it ends, so only open spans
 * are held in memory.
 */
export function otlpFormat(): ExportFormat {
  let spans: JobSpans | null = null
  let written = 0
  const text = (records: SpanRecord[]): string =>
    records.map((record) => `${written++ === 0 ? '' : ','}${JSON.stringify(otlpJsonSpan(record))}`).join('')

  return {
    begin(job: Job) {
      spans = new JobSpans(job)
      const resource = { attributes: otlpJsonAttributes(resourceAttributes(job)) }
      return `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${JSON.stringify(instrumentationScope)},"spans":[`
    },
    event: (row: EventRow) => (spans ? text(spans.event(row)) : ''),
    end: () => `${spans ? text(spans.end()) : ''}]}]}]}\n`,
    get count() {
      return written
    },
  }
}

export function otlpJsonSpan(span: SpanRecord): Record<string, unknown> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: String(span.startNs),
    endTimeUnixNano: String(span.endNs),
    attributes: otlpJsonAttributes(span.attributes),
    ...(span.events?.length
      ? {
          events: span.events.map((event) => ({
            timeUnixNano: String(event.timeNs),
            name: event.name,
            attributes: otlpJsonAttributes(event.attributes),
          })),
        }
      : {}),
    status: span.status,
  }
}

type JsonAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: JsonAnyValue[] } }

/** Attributes as OTLP JSON key-values: integers as int64 strings, doubles as numbers even when integral. */
export function otlpJsonAttributes(values: Attributes): { key: string; value: JsonAnyValue }[] {
  return Object.entries(values).map(([key, value]) => {
    if (Array.isArray(value)) return { key, value: { arrayValue: { values: value.map((item) => ({ stringValue: item })) } } }
    if (typeof value === 'boolean') return { key, value: { boolValue: value } }
    if (typeof value === 'number') return { key, value: { intValue: String(value) } }
    if (typeof value === 'object') return { key, value: { doubleValue: value.double } }
    return { key, value: { stringValue: value } }
  })
}
