import { createRequire } from 'node:module'

/**
 * The official OpenTelemetry protobuf definitions, for tests: the protobufjs static module that
 * @opentelemetry/otlp-transformer generates from opentelemetry-proto. Its `.d.ts` types the root
 * loosely, so the few functions used here are typed by hand.
 */
export interface ProtoType {
  verify(message: unknown): string | null
  encode(message: unknown): { finish(): Uint8Array }
  decode(bytes: Uint8Array): unknown
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>
}

interface GeneratedRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } }
}

const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as GeneratedRoot

export const ExportTraceServiceRequest: ProtoType = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest

/** Decodes an OTLP/HTTP protobuf body into plain data: ids as hex, 64-bit integers as strings, enums as numbers. */
export function decodeTraceRequest(body: Uint8Array): Record<string, unknown> {
  const message = ExportTraceServiceRequest.decode(body)
  return hexIds(ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number, bytes: Array })) as Record<string, unknown>
}

/** Span and trace ids: 16-byte trace ids, 8-byte span ids (an absent parent is empty). */
const idBytes: Record<string, number> = { traceId: 16, spanId: 8, parentSpanId: 8 }
/** Fields that are int64 or fixed64 in the protos: OTLP/JSON writes them as decimal strings. */
const int64Fields = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'observedTimeUnixNano', 'intValue'])

/**
 * Checks an OTLP/JSON trace export strictly against the official definitions: converts it to
 * protobuf form by the OTLP/JSON rules (hex ids, int64 as strings), checks id lengths, verifies
 * every field's type with the generated `verify`, then encodes, decodes and compares: a field the
 * protos do not define is dropped by the encoder, so the round trip names it. Returns the errors
 * (none when the export is valid) and the encoded bytes.
 */
export function checkOtlpJson(document: unknown): { errors: string[]; bytes: Uint8Array | null } {
  const errors: string[] = []
  const message = toProtoForm(document, '', errors)
  if (errors.length > 0) return { errors, bytes: null }
  const invalid = ExportTraceServiceRequest.verify(message)
  if (invalid) return { errors: [invalid], bytes: null }
  const bytes = ExportTraceServiceRequest.encode(message).finish()
  const decoded = decodeTraceRequest(bytes)
  compare(normalised(document), decoded, '', errors)
  return { errors, bytes }
}

function toProtoForm(value: unknown, path: string, errors: string[]): unknown {
  if (Array.isArray(value)) return value.map((item, index) => toProtoForm(item, `${path}[${index}]`, errors))
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key
    if (key in idBytes) out[key] = idToBytes(item, at, idBytes[key]!, key === 'parentSpanId', errors)
    else if (int64Fields.has(key)) out[key] = int64(item)
    else out[key] = toProtoForm(item, at, errors)
  }
  return out
}

function idToBytes(value: unknown, path: string, length: number, mayBeEmpty: boolean, errors: string[]): Uint8Array | unknown {
  if (typeof value !== 'string' || !/^(?:[0-9a-f]{2})*$/i.test(value)) {
    errors.push(`${path}: an id must be a hex string`)
    return value
  }
  if (value.length !== length * 2 && !(mayBeEmpty && value === '')) errors.push(`${path}: ${value.length / 2} bytes, expected ${length}`)
  else if (/^0+$/.test(value)) errors.push(`${path}: an all-zero id is invalid`)
  return Uint8Array.from(Buffer.from(value, 'hex'))
}

/** A decimal string or integer as protobufjs's {low, high} 64-bit form; anything else is left for `verify` to refuse. */
function int64(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    const bits = BigInt.asUintN(64, BigInt(value))
    return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0 }
  }
  return value
}

/** The JSON as the round trip gives it back: ids lowercase, 64-bit integers as strings. */
function normalised(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => normalised(item))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, normalised(item, name)]))
  if (key in idBytes && typeof value === 'string') return value.toLowerCase()
  if (int64Fields.has(key) && typeof value === 'string') return BigInt(value).toString()
  return value
}

function hexIds(value: unknown, key = ''): unknown {
  if (key in idBytes && Array.isArray(value)) return Buffer.from(value as number[]).toString('hex')
  if (Array.isArray(value)) return value.map((item) => hexIds(item))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, hexIds(item, name)]))
  return value
}

function compare(sent: unknown, back: unknown, path: string, errors: string[]): void {
  if (Array.isArray(sent) && Array.isArray(back)) {
    if (sent.length !== back.length) errors.push(`${path}: ${sent.length} items sent, ${back.length} after the round trip`)
    sent.forEach((item, index) => compare(item, back[index], `${path}[${index}]`, errors))
    return
  }
  if (sent && typeof sent === 'object' && back && typeof back === 'object' && !Array.isArray(sent) && !Array.isArray(back)) {
    const returned = back as Record<string, unknown>
    for (const [key, item] of Object.entries(sent)) {
      const at = path ? `${path}.${key}` : key
      if (!(key in returned)) {
        // An empty repeated field or an empty id is not written at all: nothing was lost.
        if (!((Array.isArray(item) && item.length === 0) || item === ''))
          errors.push(`${at}: not a field of the OTLP protos (lost in the round trip)`)
      } else compare(item, returned[key], at, errors)
    }
    return
  }
  if (sent !== back) errors.push(`${path}: sent ${JSON.stringify(sent)}, got ${JSON.stringify(back)} back`)
}
