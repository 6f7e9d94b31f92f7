import { closeSync, openSync, writeSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { finished as watchStream } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Job } from '../trace/model'
import type { SqliteDatabase } from './database'
import { StoreError } from './errors'
import { eventColumns, jobColumns, jobFromRow, type EventRow, type JobRow } from './rows'

export const traceFormat = 'arbor-trace'
export const traceFormatVersion = 1

export interface ExportOptions {
  /** Clock for `exported_at`; injected by tests. */
  now?: () => Date
  /** Rows read per query before yielding to the event loop. Default 1000. */
  chunkRows?: number
}

/** Line 1 of a trace file (docs/trace-format.md). Settings never hold API keys: the store never gets them. */
export function traceHeaderLine(job: Job, exportedAt: Date): string {
  const { id, project, task, settings, status, created_at } = job
  const header = {
    type: 'trace.header',
    format: traceFormat,
    version: traceFormatVersion,
    job: { id, project, task, settings, status, created_at },
    exported_at: exportedAt.toISOString(),
  }
  return JSON.stringify(header) + '\n'
}

/** One event line; `data` is already compact JSON in the row, so it is spliced in as is. */
export const traceEventLine = (row: EventRow): string =>
  `{"type":${JSON.stringify(row.type)},"seq":${row.seq},"ts":${JSON.stringify(row.ts)},` +
  `"job_id":${JSON.stringify(row.job_id)},"agent_id":${JSON.stringify(row.agent_id)},` +
  `"parent_id":${JSON.stringify(row.parent_id)},"depth":${JSON.stringify(row.depth)},"data":${row.data}}\n`

/**
 * The same line as traceEventLine, as an SQL expression over an events row whose seq is `seq`:
 * json_quote escapes text as JSON.stringify does (quote, backslash, control characters) and
 * gives `null` for NULL (tests pin the two to each other).
 */
export const traceEventLineSql = (seq: string): string =>
  `'{"type":' || json_quote(type) || ',"seq":' || ${seq} || ',"ts":' || json_quote(ts) || ` +
  `',"job_id":' || json_quote(job_id) || ',"agent_id":' || json_quote(agent_id) || ` +
  `',"parent_id":' || json_quote(parent_id) || ',"depth":' || json_quote(depth) || ',"data":' || data || '}' || char(10)`

/** How a format writes a job: an opening, then text for each event in seq order, then a closing. */
export interface ExportFormat {
  begin(job: Job, exportedAt: Date): string
  /** Text for one event ('' when it adds nothing yet). */
  event(row: EventRow): string
  /**
   * The text of `event` as an SQL expression over an events row (whose seq is `seq`), for a
   * format whose text depends on the row alone. The export then takes each event's text from
   * SQLite instead of calling `event`: one string per row reaches JS, not a row object and its
   * pieces, which halves the CPU of an export and keeps a long one's heap from growing.
   */
  eventSql?(seq: string): string
  /** The closing text; `events` is how many event rows were written. */
  end(events: number): string
  /** What the export returns: lines for JSONL, spans for OTLP. */
  readonly count: number
}

/** Trace JSONL v1: the header line, then one line per event. */
export function jsonlFormat(): ExportFormat {
  let lines = 0
  return {
    begin(job, exportedAt) {
      lines = 1
      return traceHeaderLine(job, exportedAt)
    },
    event: traceEventLine,
    eventSql: traceEventLineSql,
    end(events) {
      lines = 1 + events
      return ''
    },
    get count() {
      return lines
    },
  }
}

/**
 * Streams a job's trace as JSONL (header, then its events in seq order) to a stream, which is
 * left open, or to a file path, written atomically (temp file, then rename). The events are
 * those committed when the export starts. Rows are read with `iterate()` a chunk at a time and
 * no iterator stays open across an await, so the writer can keep committing on the same
 * connection meanwhile; backpressure is respected. Returns the number of lines written.
 */
export function exportJobJsonl(
  db: SqliteDatabase,
  jobId: string,
  out: NodeJS.WritableStream | string,
  options: ExportOptions = {},
): Promise<number> {
  return exportJob(db, jobId, out, jsonlFormat(), options)
}

/**
 * Streams a job in any export format, to a stream or atomically to a file path; returns the
 * format's count. A file is written with synchronous writes of 16 KiB, a chunk of rows between
 * yields to the event loop: that costs less CPU than an asynchronous file stream, which writes
 * each block on a libuv thread and is waited for, and holds no block longer than one write.
 */
export async function exportJob(
  db: SqliteDatabase,
  jobId: string,
  out: NodeJS.WritableStream | string,
  format: ExportFormat,
  options: ExportOptions = {},
): Promise<number> {
  if (typeof out !== 'string') return writeTrace(db, jobId, new StreamSink(out), format, options)
  const temporary = `${out}.${process.pid}.tmp`
  const sink = new FileSink(openSync(temporary, 'w'))
  try {
    const count = await writeTrace(db, jobId, sink, format, options)
    sink.close()
    await rename(temporary, out)
    return count
  } catch (error) {
    sink.close()
    await rm(temporary, { force: true })
    throw error
  }
}

/** Where an export's text goes: `write` false means wait for `drain()` before writing more. */
interface TraceSink {
  /** Text gathered before each write: a write per line costs more than building the line. */
  readonly writeSize: number
  write(text: string): boolean
  drain(): Promise<void>
  stop(): void
}

async function writeTrace(db: SqliteDatabase, jobId: string, sink: TraceSink, format: ExportFormat, options: ExportOptions): Promise<number> {
  const jobRow = db.prepare<[string], JobRow>(`SELECT ${jobColumns} FROM jobs WHERE id = ?`).get(jobId)
  if (!jobRow) throw new StoreError(`Job ${jobId} not found`)
  const lastSeq = db.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE job_id = ?').get(jobId)
  const maxSeq = lastSeq?.seq ?? 0
  // An imported event is written with the seq it had in its file (`source_seq`); paging goes by
  // the stored seq, the first column of every row read.
  const exportedSeq = 'COALESCE(source_seq, seq)'
  const columns = format.eventSql
    ? format.eventSql(exportedSeq)
    : eventColumns.split(', ').map((column) => (column === 'seq' ? `${exportedSeq} AS seq` : column)).join(', ')
  const chunk = db.prepare<[string, number, number, number], [number, string] | [number, ...unknown[]]>(
    `SELECT seq, ${columns} FROM events WHERE job_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  )
  chunk.raw()
  const textOf = format.eventSql ? (row: unknown[]) => row[1] as string : (row: unknown[]) => format.event(eventRow(row))
  const chunkRows = Math.max(1, options.chunkRows ?? 1000)
  const write = async (text: string): Promise<void> => {
    if (text && !sink.write(text)) await sink.drain()
  }
  try {
    await write(format.begin(jobFromRow(jobRow), (options.now ?? (() => new Date()))()))
    let afterSeq = 0
    let events = 0
    for (;;) {
      let rows = 0
      let blocked = false
      let text = ''
      for (const row of chunk.iterate(jobId, afterSeq, maxSeq, chunkRows)) {
        rows++
        afterSeq = row[0]
        text += textOf(row)
        if (text.length < sink.writeSize) continue
        blocked = !sink.write(text)
        text = ''
        if (blocked) break
      }
      events += rows
      if (text) blocked = !sink.write(text)
      if (blocked) await sink.drain()
      else if (rows < chunkRows) break
      else await nextTurn()
    }
    await write(format.end(events))
    return format.count
  } finally {
    sink.stop()
  }
}

/** A raw row of the chunk query without eventSql: the stored seq, then eventColumns. */
const eventRow = ([, seq, job_id, agent_id, parent_id, depth, type, ts, data]: unknown[]): EventRow =>
  ({ seq, job_id, agent_id, parent_id, depth, type, ts, data }) as EventRow

/** A file descriptor, written synchronously and completely; it never asks to wait. */
class FileSink implements TraceSink {
  // Small blocks: a block held while more lines are added survives the young generation's
  // collections, and enough such survivors make V8 grow the heap on a long export.
  readonly writeSize = 16384
  private open = true

  constructor(private readonly fd: number) {}

  write(text: string): boolean {
    // Encoded once here: writeSync would encode a string itself, and a short write (a full disk,
    // say) needs the byte length, which would be a second pass over the text.
    const bytes = Buffer.from(text)
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.fd, bytes, offset)
    return true
  }

  drain(): Promise<void> {
    return Promise.resolve()
  }

  stop(): void {}

  close(): void {
    if (this.open) closeSync(this.fd)
    this.open = false
  }
}

/**
 * A stream, written in blocks of several times its buffer size (each wait for 'drain' restarts
 * the query), so memory stays bounded by one such block beyond the buffer.
 */
class StreamSink implements TraceSink {
  readonly writeSize: number
  private readonly watcher: StreamWatcher

  constructor(private readonly stream: NodeJS.WritableStream) {
    this.writeSize = 8 * ((stream as { writableHighWaterMark?: number }).writableHighWaterMark ?? 16384)
    this.watcher = new StreamWatcher(stream)
  }

  write(text: string): boolean {
    return this.stream.write(text)
  }

  drain(): Promise<void> {
    return this.watcher.drain()
  }

  stop(): void {
    this.watcher.stop()
  }
}

/** Waits for 'drain', failing instead if the stream errors or closes; `stop()` removes its listeners. */
class StreamWatcher {
  private failure: Error | null = null
  private rejectWait: ((error: Error) => void) | null = null
  private readonly cleanup: () => void

  constructor(private readonly stream: NodeJS.WritableStream) {
    this.cleanup = watchStream(stream, (error) => {
      this.failure = error ?? new StoreError('Export stream closed before the export finished')
      this.rejectWait?.(this.failure)
    })
  }

  drain(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.rejectWait = reject
      this.stream.once('drain', () => {
        this.rejectWait = null
        resolve()
      })
    })
  }

  stop(): void {
    this.cleanup()
  }
}
