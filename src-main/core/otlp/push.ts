import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { ArborError } from '../errors'
import { createRedactor, type Redactor } from '../secrets/redact'
import type { SqliteDatabase } from '../store/database'
import { StoreError } from '../store/errors'
import { eventColumns, jobColumns, jobFromRow, type EventRow, type JobRow } from '../store/rows'
import { endpointLabel, tracesUrl } from '../api/otlp-endpoint'
import { otelResource, readableSpan } from './readable-span'
import { JobSpans, resourceAttributes } from './span-model'

export interface PushOptions {
  /** An OTLP/HTTP traces URL, or a base URL without a path (`/v1/traces` is added). */
  endpoint: string
  /** Sent with every request; the values are never printed or logged. */
  headers?: Record<string, string>
  /** Every secret the engine knows (settings/known-secrets.ts): none goes out in a span or an error message, as the headers' values. */
  secrets?: readonly string[]
  /** Per request, retries included (the exporter retries 429/502/503/504 and dropped connections). Default 10 s. */
  timeoutMs?: number
  /** Spans per request; memory holds at most one batch plus the open spans. Default 512. */
  batchSpans?: number
  /** Event rows read per query. Default 1000. */
  chunkRows?: number
}

/**
 * Pushes one job's spans to an OTLP/HTTP collector (Langfuse, Phoenix, Jaeger v2, the Collector)
 * with the official protobuf exporter. The spans are those of the OTLP JSON export
 * (span-model.ts), built as the events stream by and sent in batches. Throws an `OtlpPushError`
 * naming the endpoint and what went wrong; returns the number of spans sent. Known secrets and
 * the headers' values are redacted (secrets/redact.ts) from the spans and from every error.
 */
export async function pushJob(db: SqliteDatabase, jobId: string, options: PushOptions): Promise<{ spans: number; url: string }> {
  const url = tracesUrl(options.endpoint)
  const jobRow = db.prepare<[string], JobRow>(`SELECT ${jobColumns} FROM jobs WHERE id = ?`).get(jobId)
  if (!jobRow) throw new StoreError(`Job ${jobId} not found`)
  const timeoutMs = options.timeoutMs ?? 10_000
  const headers = options.headers ?? {}
  const redactor = createRedactor([...Object.values(headers), ...(options.secrets ?? [])])
  const job = redactor.redactDeep(jobFromRow(jobRow))
  const exporter = new OTLPTraceExporter({ url, headers: { ...headers }, timeoutMillis: timeoutMs, concurrencyLimit: 1 })
  const spans = new JobSpans(job)
  const resource = otelResource(resourceAttributes(job))
  const batchSpans = Math.max(1, options.batchSpans ?? 512)
  let batch: ReadableSpan[] = []
  let sent = 0
  const send = async (): Promise<void> => {
    if (batch.length === 0) return
    const spansToSend = batch
    batch = []
    const result = await new Promise<ExportResult>((resolve) => exporter.export(spansToSend, resolve))
    if (result.code !== ExportResultCode.SUCCESS) throw new OtlpPushError(failureMessage(url, result.error, timeoutMs, redactor))
    sent += spansToSend.length
  }
  try {
    for (const rows of eventChunks(db, jobId, options.chunkRows ?? 1000)) {
      for (const stored of rows) {
        const data = redactor.redactKnown(stored.data)
        const row = data === stored.data ? stored : { ...stored, data }
        for (const record of spans.event(row)) batch.push(readableSpan(record, resource))
        if (batch.length >= batchSpans) await send()
      }
    }
    for (const record of spans.end()) batch.push(readableSpan(record, resource))
    await send()
    return { spans: sent, url }
  } finally {
    await exporter.shutdown().catch(() => undefined)
  }
}

/**
 * A job's events a chunk at a time, committed ones as of the start; a chunk is read whole, so no
 * statement stays open while a batch is sent. Imported events keep the seq of their file, as in
 * the file export, so span ids match.
 */
function* eventChunks(db: SqliteDatabase, jobId: string, chunkRows: number): Generator<EventRow[]> {
  const maxSeq = db.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE job_id = ?').get(jobId)?.seq ?? 0
  const columns = eventColumns.replace(/^seq, /, 'seq AS stored_seq, COALESCE(source_seq, seq) AS seq, ')
  const chunk = db.prepare<[string, number, number, number], EventRow & { stored_seq: number }>(
    `SELECT ${columns} FROM events WHERE job_id = ? AND events.seq > ? AND events.seq <= ? ORDER BY events.seq LIMIT ?`,
  )
  let afterSeq = 0
  for (;;) {
    const rows = chunk.all(jobId, afterSeq, maxSeq, Math.max(1, chunkRows))
    if (rows.length === 0) return
    afterSeq = rows[rows.length - 1]!.stored_seq
    yield rows
  }
}

/** One line: the endpoint, then the HTTP status or the network failure; secrets are removed from anything a server echoed. */
function failureMessage(url: string, error: Error | undefined, timeoutMs: number, redactor: Redactor): string {
  const where = `OTLP export to ${endpointLabel(url)} failed`
  const status = (error as { code?: unknown } | undefined)?.code
  const body = redactor
    .redact(String((error as { data?: unknown } | undefined)?.data ?? ''))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200)
  const message = redactor.redact(error?.message ?? '')
  if (typeof status === 'number') return `${where}: HTTP ${status}${message ? ` ${message}` : ''}${body ? ` (${body})` : ''}`
  if (typeof status === 'string') return `${where}: cannot connect (${status})`
  if (!message) return `${where}: unknown error`
  if (/timed out/i.test(message)) return `${where}: no answer within ${timeoutMs / 1000} s`
  if (/retryable status/i.test(message))
    return `${where}: the collector kept answering with a retryable status (429, 502, 503 or 504) for ${timeoutMs / 1000} s`
  return `${where}: ${message}`
}

export class OtlpPushError extends ArborError<'otlp_push'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.OtlpPushError')
  override name = 'OtlpPushError'

  constructor(message: string, options?: { cause?: unknown }) {
    super('otlp_push', message, options)
  }
}
