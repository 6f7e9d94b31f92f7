import { SpanKind, TraceFlags, type Attributes as OtelAttributes, type HrTime } from '@opentelemetry/api'
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { instrumentationScope, spanKind, type Attributes, type SpanRecord } from './span-model'

/**
 * A span record as the OpenTelemetry SDK's `ReadableSpan`, what the official OTLP exporters take.
 * The SDK's attributes are plain JS numbers, so its serializer sends an integral double (a cost of
 * exactly 0 or 1 USD) as an integer; every other value keeps its type (docs/otlp.md).
 */
export function readableSpan(span: SpanRecord, resource: Resource): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED }
  const duration = span.endNs - span.startNs
  return {
    name: span.name,
    // The API's SpanKind counts from INTERNAL = 0, the proto's from UNSPECIFIED = 0.
    kind: span.kind === spanKind.client ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } : undefined,
    startTime: hrTime(span.startNs),
    endTime: hrTime(span.endNs),
    duration: hrTime(duration),
    status: span.status,
    attributes: otelAttributes(span.attributes),
    links: [],
    events: (span.events ?? []).map((event) => ({
      name: event.name,
      time: hrTime(event.timeNs),
      attributes: otelAttributes(event.attributes),
    })),
    ended: true,
    resource,
    instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

export const otelResource = (attributes: Attributes): Resource => resourceFromAttributes(otelAttributes(attributes))

function otelAttributes(values: Attributes): OtelAttributes {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, typeof value === 'object' && !Array.isArray(value) ? value.double : value]),
  )
}

const hrTime = (ns: bigint): HrTime => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]
