import type { Statement } from 'better-sqlite3'
import { detectTraceFormat, type TraceFileFormat } from './claude-code/detect'
import { readClaudeSession, type ClaudeSession } from './claude-code/session'
import { readLinesSync } from './read-lines'
import type { PriceTable } from '../providers/pricing'
import type { Redactor } from '../secrets/redact'
import type { TraceEvent } from '../trace/events'
import type { FileContentLine } from '../trace/file-content-line'
import { emptyUsage } from '../trace/usage'
import type { SqliteDatabase } from '../store/database'
import { StoreError, TraceParseError } from '../store/errors'
import { fileContentHash, putFileContent } from '../store/file-contents'
import { TraceReader, type TraceHeader } from '../store/import'
import { BatchProjector } from '../store/projector'
import { jobColumns, jobToRow, type JobRow } from '../store/rows'

export interface ImportResult {
  job_id: string
  /** Events stored (0 when the job was already there). */
  events: number
  /** The trace's job was already in this database: nothing was written. */
  existing: boolean
  /** Set when the file was a Claude Code session (converted to a trace); absent for an Arbor trace. */
  format?: Extract<TraceFileFormat, 'claude-code'>
  /** A Claude Code session's lines not imported, by entry type (`malformed` for lines that are not JSON objects). */
  skipped?: Record<string, number>
}

export interface ImportOptions {
  /** Prices for the cost of a Claude Code session's model calls (an Arbor trace carries its own). */
  prices?: PriceTable
  /** Takes known keys out of what the file holds (a Claude Code session or an Arbor trace) before anything is stored. */
  redactor?: Redactor
}

/** Events projected per batch: the projector holds the rows a batch touches, not the whole job. */
const projectEvery = 2000

/** Where a trace's header and events come from: called once, inside the import's transaction. */
type TraceSource = (
  onHeader: (header: TraceHeader) => void,
  onEvent: (event: TraceEvent, line: number) => void,
  onContent: (content: FileContentLine, line: number, bytes: Buffer) => void,
) => void

/**
 * Imports a trace JSONL file, or a Claude Code session (detect.ts tells them apart by the first
 * line), as a read-only job. A trace is read a chunk at a time (never whole) and every line is
 * checked as it is stored; a session is converted first (claude-code/session.ts) and its events
 * go through the same path. All inside ONE transaction: a bad line (the first one is named) or a
 * truncated file rolls everything back, so nothing of it is imported. Events keep their file's
 * `seq` as `source_seq`, so exporting the job again gives the same lines. The tree is projected
 * by the same reducers the trace writer applies. Synchronous on purpose: a better-sqlite3
 * transaction cannot span an await.
 */
export function importTraceFile(db: SqliteDatabase, file: string, options: ImportOptions = {}): ImportResult {
  if (detectTraceFormat(file) === 'claude-code') {
    let session: ClaudeSession
    try {
      session = readClaudeSession(file, options)
    } catch (error) {
      if (error instanceof StoreError) throw error
      throw new StoreError(`Cannot import the Claude Code session ${file}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      })
    }
    const stored = storeTrace(db, file, (onHeader, onEvent) => {
      onHeader(session.header)
      session.events.forEach((event, index) => onEvent(event, index + 1))
    })
    return { ...stored, format: 'claude-code', skipped: session.skipped }
  }
  // A trace exported elsewhere (or before a key was saved here) is stored, shown and exported
  // again as this machine's own traces are: without the keys this engine knows.
  const redact = <T>(value: T): T => (options.redactor ? options.redactor.redactDeep(value) : value)
  const secrets = (options.redactor?.secrets ?? []).map((secret) => Buffer.from(secret))
  return storeTrace(db, file, (onHeader, onEvent, onContent) => {
    const reader = new TraceReader(
      (event, line) => onEvent(redact(event), line),
      (header) => onHeader(redact(header)),
      // File contents are bytes named by their hash: one holding a known key is not stored, not rewritten.
      (content, line) => {
        if (content.base64 === undefined) return
        const bytes = Buffer.from(content.base64, 'base64')
        if (!secrets.some((secret) => bytes.includes(secret))) onContent({ ...content, base64: undefined }, line, bytes)
      },
    )
    readLinesSync(file, (line) => reader.push(line))
    reader.finishComplete()
  })
}

/** Stores one trace in one transaction; nothing of it is kept when the source throws. */
function storeTrace(db: SqliteDatabase, file: string, source: TraceSource): ImportResult {
  const statements = prepare(db)
  const projector = new BatchProjector(db)
  let jobId = ''
  let existing = false
  let stored = 0
  const run = db.transaction(() => {
    source(
      (header) => {
        jobId = header.job.id
        existing = statements.selectJob.get(jobId) !== undefined
        if (!existing) statements.insertJob.run(jobToRow(importedJob(header)))
      },
      (event, line) => {
        if (existing) return
        claimAgents(statements, event, jobId, line)
        const info = statements.insertEvent.run(
          event.job_id,
          event.agent_id,
          event.parent_id,
          event.depth,
          event.type,
          event.ts,
          JSON.stringify(event.data),
          event.seq,
        )
        projector.apply({ ...event, seq: Number(info.lastInsertRowid) })
        if (++stored % projectEvery === 0) flushProjection(projector)
      },
      (content, line, bytes) => {
        if (existing) return
        if (bytes.byteLength !== content.size || fileContentHash(bytes) !== content.hash)
          throw new TraceParseError(line, `file.content ${content.hash}: its bytes do not match its size and SHA-256`)
        putFileContent(db, bytes)
      },
    )
    flushProjection(projector)
  })
  try {
    run()
  } catch (error) {
    projector.reset()
    if (error instanceof TraceParseError || error instanceof StoreError) throw error
    throw new StoreError(`Cannot import ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  return { job_id: jobId, events: existing ? 0 : stored, existing }
}

function flushProjection(projector: BatchProjector): void {
  projector.write()
  projector.reset()
}

/** The job's row before its events are applied; `job.start`, controls and `job.end` project the rest. */
function importedJob(header: TraceHeader) {
  return {
    ...header.job,
    status: header.job.status,
    ended_at: null,
    auto_approve: false,
    subagent_approvals: 'deny' as const,
    spawn_paused: false,
    usage: emptyUsage(),
    cost_usd: null,
    imported: true,
  }
}

interface ImportStatements {
  selectJob: Statement<[string], { id: string }>
  insertJob: Statement<[JobRow]>
  selectAgentJob: Statement<[string], { job_id: string }>
  insertEvent: Statement<[string, string | null, string | null, number | null, string, string, string, number]>
}

function prepare(db: SqliteDatabase): ImportStatements {
  return {
    selectJob: db.prepare('SELECT id FROM jobs WHERE id = ?'),
    insertJob: db.prepare(
      `INSERT INTO jobs (${jobColumns}) VALUES (${jobColumns
        .split(', ')
        .map((name) => '@' + name)
        .join(', ')})`,
    ),
    selectAgentJob: db.prepare('SELECT job_id FROM agents WHERE id = ?'),
    insertEvent: db.prepare(
      'INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data, source_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  }
}

/** An agent id of another job would overwrite that job's node: refuse the line. */
function claimAgents(statements: ImportStatements, event: TraceEvent, jobId: string, line: number): void {
  for (const agentId of [event.agent_id, typeof event.data.child_agent_id === 'string' ? event.data.child_agent_id : null]) {
    if (agentId === null) continue
    const owner = statements.selectAgentJob.get(agentId)?.job_id
    if (owner !== undefined && owner !== jobId)
      throw new TraceParseError(line, `agent ${agentId} already belongs to job ${owner} in this database`)
  }
}

/** Kept here for the callers that read lines the way the import does (bench/store.ts). */
export { readLinesSync }
