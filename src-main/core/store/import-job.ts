import { closeSync, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import type { Statement } from 'better-sqlite3'
import type { TraceEvent } from '../trace/events'
import { emptyUsage } from '../trace/usage'
import type { SqliteDatabase } from './database'
import { StoreError, TraceParseError } from './errors'
import { TraceReader, type TraceHeader } from './import'
import { BatchProjector } from './projector'
import { jobColumns, jobToRow, type JobRow } from './rows'

export interface ImportResult {
  job_id: string
  /** Events stored (0 when the job was already there). */
  events: number
  /** The trace's job was already in this database: nothing was written. */
  existing: boolean
}

/** Events projected per batch: the projector holds the rows a batch touches, not the whole job. */
const projectEvery = 2000

/**
 * Imports a trace JSONL file as a read-only job. The file is read a chunk at a time (never whole)
 * and every line is checked as it is stored, all inside ONE transaction: a bad line (the first
 * one is named) or a truncated file rolls everything back, so nothing of it is imported. Events
 * keep their file's `seq` as `source_seq`, so exporting the job again gives the same lines. The
 * tree is projected by the same reducers the trace writer applies. Synchronous on purpose: a
 * better-sqlite3 transaction cannot span an await.
 */
export function importTraceFile(db: SqliteDatabase, file: string): ImportResult {
  const statements = prepare(db)
  const projector = new BatchProjector(db)
  let jobId = ''
  let existing = false
  let stored = 0
  const run = db.transaction(() => {
    const reader = new TraceReader(
      (event, line) => {
        if (existing) return
        claimAgents(statements, event, jobId, line)
        const info = statements.insertEvent.run(
          event.job_id, event.agent_id, event.parent_id, event.depth, event.type, event.ts, JSON.stringify(event.data), event.seq,
        )
        projector.apply({ ...event, seq: Number(info.lastInsertRowid) })
        if (++stored % projectEvery === 0) flushProjection(projector)
      },
      (header) => {
        jobId = header.job.id
        existing = statements.selectJob.get(jobId) !== undefined
        if (!existing) statements.insertJob.run(jobToRow(importedJob(header)))
      },
    )
    readLinesSync(file, (line) => reader.push(line))
    reader.finishComplete()
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
    insertJob: db.prepare(`INSERT INTO jobs (${jobColumns}) VALUES (${jobColumns.split(', ').map((name) => '@' + name).join(', ')})`),
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
    if (owner !== undefined && owner !== jobId) throw new TraceParseError(line, `agent ${agentId} already belongs to job ${owner} in this database`)
  }
}

/** Calls `onLine` for each line of a UTF-8 file, reading 64 KiB at a time. */
export function readLinesSync(file: string, onLine: (line: string) => void): void {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw new StoreError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error })
  }
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    const decoder = new StringDecoder('utf8')
    let rest = ''
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null)
      if (read === 0) break
      const text = rest + decoder.write(buffer.subarray(0, read))
      const lines = text.split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) onLine(line)
    }
    rest += decoder.end()
    if (rest !== '') onLine(rest)
  } finally {
    closeSync(fd)
  }
}
