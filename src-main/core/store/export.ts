import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { finished as watchStream } from 'node:stream'
import { finished } from 'node:stream/promises'
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

/** How a format writes a job: an opening, then text for each event in seq order, then a closing. */
export interface ExportFormat {
  begin(job: Job, exportedAt: Date): string
  /** Text for one event ('' when it adds nothing yet). */
  event(row: EventRow): string
  end(): string
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
    event(row) {
      lines++
      return traceEventLine(row)
    },
    end: () => '',
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

/** Streams a job in any export format, to a stream or atomically to a file path; returns the format's count. */
export async function exportJob(
  db: SqliteDatabase,
  jobId: string,
  out: NodeJS.WritableStream | string,
  format: ExportFormat,
  options: ExportOptions = {},
): Promise<number> {
  if (typeof out !== 'string') return writeTrace(db, jobId, out, format, options)
  const temporary = `${out}.${process.pid}.tmp`
  const file = createWriteStream(temporary)
  try {
    const count = await writeTrace(db, jobId, file, format, options)
    file.end()
    await finished(file)
    await rename(temporary, out)
    return count
  } catch (error) {
    // The file may still be opening: wait for it to close, or the temp file appears after rm.
    file.destroy()
    await finished(file).catch(() => undefined)
    await rm(temporary, { force: true })
    throw error
  }
}

async function writeTrace(
  db: SqliteDatabase,
  jobId: string,
  out: NodeJS.WritableStream,
  format: ExportFormat,
  options: ExportOptions,
): Promise<number> {
  const jobRow = db.prepare<[string], JobRow>(`SELECT ${jobColumns} FROM jobs WHERE id = ?`).get(jobId)
  if (!jobRow) throw new StoreError(`Job ${jobId} not found`)
  const lastSeq = db.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE job_id = ?').get(jobId)
  const maxSeq = lastSeq?.seq ?? 0
  // An imported event is written with the seq it had in its file (`source_seq`); paging goes by
  // the stored seq.
  const exportedColumns = eventColumns.replace(/^seq, /, 'seq AS stored_seq, COALESCE(source_seq, seq) AS seq, ')
  const chunk = db.prepare<[string, number, number, number], EventRow & { stored_seq: number }>(
    `SELECT ${exportedColumns} FROM events WHERE job_id = ? AND events.seq > ? AND events.seq <= ? ORDER BY events.seq LIMIT ?`,
  )
  const chunkRows = Math.max(1, options.chunkRows ?? 1000)
  const watcher = new StreamWatcher(out)
  const write = async (text: string): Promise<void> => {
    if (text && !out.write(text)) await watcher.drain()
  }
  try {
    await write(format.begin(jobFromRow(jobRow), (options.now ?? (() => new Date()))()))
    // Lines go out in writes of several times the stream's buffer size (a file's 64 KiB: about
    // a chunk of rows): a write per line costs more than building the line, and each wait for
    // 'drain' restarts the query. Memory stays bounded by one such write beyond the buffer.
    const writeSize = 8 * ((out as { writableHighWaterMark?: number }).writableHighWaterMark ?? 16384)
    let afterSeq = 0
    for (;;) {
      let rows = 0
      let blocked = false
      let text = ''
      for (const row of chunk.iterate(jobId, afterSeq, maxSeq, chunkRows)) {
        rows++
        afterSeq = row.stored_seq
        text += format.event(row)
        if (text.length < writeSize) continue
        blocked = !out.write(text)
        text = ''
        if (blocked) break
      }
      if (text) blocked = !out.write(text)
      if (blocked) await watcher.drain()
      else if (rows < chunkRows) break
      else await nextTurn()
    }
    await write(format.end())
    return format.count
  } finally {
    watcher.stop()
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
