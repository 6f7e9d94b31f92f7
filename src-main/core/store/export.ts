import { closeSync, openSync, writeSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { finished as watchStream } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Redactor } from '../secrets/redact'
import type { Job } from '../trace/model'
import { canonicalSettings } from '../trace/settings-order'
import type { SqliteDatabase } from './database'
import { StoreError } from './errors'
import { eventColumns, jobColumns, jobFromRow, type EventRow, type JobRow } from './rows'

export const traceFormat = 'arbor-trace'
export const traceFormatVersion = 1

export interface ExportOptions {
  /** Clock for `exported_at`; injected by tests. */
  now?: () => Date
  /** Most rows read per query before yielding to the event loop. Default 1000. */
  chunkRows?: number
  /**
   * Known secrets (settings/known-secrets.ts) taken out of every line on its way out
   * (`redactKnown`): a key saved after its job ran, or one in a trace imported from elsewhere,
   * never leaves in an export. Events were redacted in full when they were written.
   */
  redactor?: Pick<Redactor, 'redactKnown' | 'secrets'>
}

/**
 * Line 1 of a trace file (docs/trace-format.md). Settings never hold API keys: the store never
 * gets them. Their keys are written in one order (canonicalSettings), however the job got them.
 */
export function traceHeaderLine(job: Job, exportedAt: Date): string {
  const { id, project, task, settings, status, created_at } = job
  const header = {
    type: 'trace.header',
    format: traceFormat,
    version: traceFormatVersion,
    job: { id, project, task, settings: canonicalSettings(settings), status, created_at },
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
 * gives `null` for NULL (tests pin the two to each other). concat() builds the line in one
 * allocation, where a chain of `||` copies it once per piece; no piece is NULL (json_quote never
 * returns NULL, seq and data are NOT NULL), so concat's reading of NULL as '' never applies.
 */
export const traceEventLineSql = (seq: string): string =>
  `concat('{"type":', json_quote(type), ',"seq":', ${seq}, ',"ts":', json_quote(ts), ` +
  `',"job_id":', json_quote(job_id), ',"agent_id":', json_quote(agent_id), ` +
  `',"parent_id":', json_quote(parent_id), ',"depth":', json_quote(depth), ',"data":', data, '}', char(10))`

/** How a format writes a job: an opening, then text for each event in seq order, then a closing. */
export interface ExportFormat {
  begin(job: Job, exportedAt: Date): string
  /** Text for one event ('' when it adds nothing yet). */
  event(row: EventRow): string
  /**
   * The text of `event` as an SQL expression over an events row (whose seq is `seq`), for a
   * format whose text depends on the row alone. The export then has SQLite build and join a
   * chunk of events' text and takes it as bytes, instead of calling `event`: no row, string or
   * line of an event is made in JS, which more than halves the CPU of an export and keeps a
   * long one's heap from growing.
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
 * format's count. A file is written with synchronous writes, a chunk of events between yields to
 * the event loop: that costs less CPU than an asynchronous file stream, which writes each block
 * on a libuv thread and is waited for, and holds no block longer than one write.
 */
export async function exportJob(
  db: SqliteDatabase,
  jobId: string,
  out: NodeJS.WritableStream | string,
  format: ExportFormat,
  options: ExportOptions = {},
): Promise<number> {
  const redacted = (sink: TraceSink): TraceSink => (options.redactor?.secrets.length ? new RedactingSink(sink, options.redactor) : sink)
  if (typeof out !== 'string') return writeTrace(db, jobId, redacted(new StreamSink(out)), format, options)
  const temporary = `${out}.${process.pid}.tmp`
  const file = new FileSink(openSync(temporary, 'w'))
  const sink = redacted(file)
  try {
    const count = await writeTrace(db, jobId, sink, format, options)
    file.close()
    await rename(temporary, out)
    return count
  } catch (error) {
    file.close()
    await rm(temporary, { force: true })
    throw error
  }
}

/** Where an export's text goes: `write` false means wait for `drain()` before writing more. */
interface TraceSink {
  /** Text of a format built in JS, gathered before each write: a write per line costs more than building the line. */
  readonly writeSize: number
  write(text: string | Uint8Array): boolean
  drain(): Promise<void>
  stop(): void
}

/** What a chunk of events whose text SQLite builds aims at; see writeJoined. */
const chunkBytes = 512 * 1024

async function writeTrace(
  db: SqliteDatabase,
  jobId: string,
  sink: TraceSink,
  format: ExportFormat,
  options: ExportOptions,
): Promise<number> {
  const jobRow = db.prepare<[string], JobRow>(`SELECT ${jobColumns} FROM jobs WHERE id = ?`).get(jobId)
  if (!jobRow) throw new StoreError(`Job ${jobId} not found`)
  const lastSeq = db.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE job_id = ?').get(jobId)
  const range: EventRange = { jobId, maxSeq: lastSeq?.seq ?? 0, chunkRows: Math.max(1, options.chunkRows ?? 1000) }
  const write = async (text: string | Uint8Array): Promise<void> => {
    if (text.length > 0 && !sink.write(text)) await sink.drain()
  }
  try {
    await write(format.begin(jobFromRow(jobRow), (options.now ?? (() => new Date()))()))
    const events = format.eventSql
      ? await writeJoined(db, range, format.eventSql(exportedSeq), write)
      : await writeRows(db, range, format, sink)
    await write(format.end(events))
    return format.count
  } finally {
    sink.stop()
  }
}

/** The events an export writes: its job's, committed when it started, read at most `chunkRows` per query. */
interface EventRange {
  jobId: string
  maxSeq: number
  chunkRows: number
}

// An imported event is written with the seq it had in its file (`source_seq`); paging goes by
// the stored seq.
const exportedSeq = 'COALESCE(source_seq, seq)'

/**
 * Writes the events of a format whose text SQLite builds (`textSql`), one query per chunk: it
 * joins the chunk's text and hands it over as bytes, with the chunk's last seq and row count, so
 * nothing of an event is made in JS. group_concat joins the text in the order the inner query
 * delivers its rows, seq order (the aggregate takes no ORDER BY of its own: that sorts the
 * chunk's text again and costs a third of the export; the export tests pin the order). A chunk
 * aims at `chunkBytes`: its row count follows the size of the last chunk's text, at most doubling
 * from 64 rows up to `chunkRows`, so a job of long events reads fewer at a time. Returns the
 * number of events written.
 */
async function writeJoined(
  db: SqliteDatabase,
  range: EventRange,
  textSql: string,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<number> {
  const chunk = db
    .prepare<[string, number, number, number], [number | null, number, Buffer | null]>(
      `SELECT max(seq), count(*), CAST(group_concat(text, '') AS BLOB) FROM ` +
        `(SELECT seq, ${textSql} AS text FROM events WHERE job_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?)`,
    )
    .raw()
  let afterSeq = 0
  let events = 0
  let rows = Math.min(range.chunkRows, 64)
  for (;;) {
    const [lastSeq, count, bytes] = chunk.get(range.jobId, afterSeq, range.maxSeq, rows)!
    events += count
    if (bytes) await write(bytes)
    if (count < rows || lastSeq === null) return events
    afterSeq = lastSeq
    const fitting = Math.floor((rows * chunkBytes) / Math.max(1, bytes?.length ?? 0))
    rows = Math.max(1, Math.min(range.chunkRows, 2 * rows, fitting))
    await nextTurn()
  }
}

/**
 * Writes the events of a format that builds their text in JS (`format.event`), a chunk of rows
 * per query, gathering text up to the sink's write size; a chunk ends early when the sink asks
 * to wait. Returns the number of events written.
 */
async function writeRows(db: SqliteDatabase, range: EventRange, format: ExportFormat, sink: TraceSink): Promise<number> {
  const columns = eventColumns
    .split(', ')
    .map((column) => (column === 'seq' ? `${exportedSeq} AS seq` : column))
    .join(', ')
  const chunk = db
    .prepare<[string, number, number, number], [number, ...unknown[]]>(
      `SELECT seq, ${columns} FROM events WHERE job_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    )
    .raw()
  let afterSeq = 0
  let events = 0
  for (;;) {
    let rows = 0
    let blocked = false
    let text = ''
    for (const row of chunk.iterate(range.jobId, afterSeq, range.maxSeq, range.chunkRows)) {
      rows++
      afterSeq = row[0]
      text += format.event(eventRow(row))
      if (text.length < sink.writeSize) continue
      blocked = !sink.write(text)
      text = ''
      if (blocked) break
    }
    events += rows
    if (text) blocked = !sink.write(text)
    if (blocked) await sink.drain()
    else if (rows < range.chunkRows) return events
    else await nextTurn()
  }
}

/** A raw row of writeRows' query: the stored seq, then eventColumns. */
const eventRow = ([, seq, job_id, agent_id, parent_id, depth, type, ts, data]: unknown[]): EventRow =>
  ({ seq, job_id, agent_id, parent_id, depth, type, ts, data }) as EventRow

/**
 * Takes known secrets out of what passes to `sink`. Every write is whole lines (or whole spans),
 * so no secret is split between two. SQLite's bytes are searched as they are and decoded only
 * when one holds a secret; a secret is searched for as JSON escapes it too (secrets/redact.ts).
 */
class RedactingSink implements TraceSink {
  private readonly needles: Buffer[]

  constructor(
    private readonly sink: TraceSink,
    private readonly redactor: Pick<Redactor, 'redactKnown' | 'secrets'>,
  ) {
    this.needles = redactor.secrets.map((secret) => Buffer.from(secret))
  }

  get writeSize(): number {
    return this.sink.writeSize
  }

  write(text: string | Uint8Array): boolean {
    if (typeof text === 'string') return this.sink.write(this.redactor.redactKnown(text))
    const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength)
    if (!this.needles.some((needle) => bytes.includes(needle))) return this.sink.write(text)
    return this.sink.write(Buffer.from(this.redactor.redactKnown(bytes.toString('utf8'))))
  }

  drain(): Promise<void> {
    return this.sink.drain()
  }

  stop(): void {
    this.sink.stop()
  }
}

/** A file descriptor, written synchronously and completely; it never asks to wait. */
class FileSink implements TraceSink {
  // Small blocks of text built in JS: a block held while more lines are added survives the young
  // generation's collections, and enough such survivors make V8 grow the heap on a long export.
  readonly writeSize = 16384
  private open = true

  constructor(private readonly fd: number) {}

  write(text: string | Uint8Array): boolean {
    // A string is encoded once here: writeSync would encode it itself, and a short write (a full
    // disk, say) needs the byte length, which would be a second pass over the text.
    const bytes = typeof text === 'string' ? Buffer.from(text) : text
    for (let offset = 0; offset < bytes.length;) offset += writeSync(this.fd, bytes, offset)
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

  write(text: string | Uint8Array): boolean {
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
