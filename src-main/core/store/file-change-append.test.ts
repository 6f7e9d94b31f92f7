import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import type { NewTraceEvent } from '../trace/events'
import { openDatabase, type SqliteDatabase } from './database'
import { fileContentHash, getFileContent } from './file-contents'
import { getJobEvents } from './queries'
import { fixedClock, jobId, rootId, sampleJob } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter, type TraceLog } from './trace-writer'
import { ThreadedTraceWriter } from './writer-thread'

const workerEntry = fileURLToPath(new URL('./writer-worker.ts', import.meta.url))

const before = Buffer.from([0, 1, 2, 255, 10])
const after = Buffer.from('after\n')

const change = (ts: string): NewTraceEvent =>
  ({
    type: 'file.change',
    ts,
    job_id: jobId,
    agent_id: rootId,
    parent_id: null,
    depth: 0,
    data: {
      path: 'bin.dat',
      kind: 'modified',
      by_tool_call: 'call_1',
      tool: 'write_file',
      bytes_before: before.byteLength,
      bytes_after: after.byteLength,
      hash_before: fileContentHash(before),
      hash_after: fileContentHash(after),
      content_stored: true,
    },
  }) as NewTraceEvent

/** Both writers store the contents an append carries with its event, on the connection that commits it. */
describe.each([
  ['TraceWriter', (db: SqliteDatabase): TraceLog => new TraceWriter(db, { flushDelayMs: 1000 })],
  [
    'ThreadedTraceWriter',
    (_db: SqliteDatabase, dbFile: string): TraceLog =>
      new ThreadedTraceWriter(new Database(dbFile, { readonly: true }), { dbFile, workerEntry, flushDelayMs: 1000 }),
  ],
])('%s: a file.change and its contents', (_name, makeWriter) => {
  const tempDir = useTempDir()

  it('are committed together, byte for byte, each version once', () => {
    const dbFile = join(tempDir(), 'arbor.db')
    const db = openDatabase(dbFile)
    const writer = makeWriter(db, dbFile)
    writer.createJob(sampleJob())
    const now = fixedClock()
    writer.append(change(now()), [before, after])
    writer.append(change(now()), [before, after])
    expect(getFileContent(db, fileContentHash(before))).toBeUndefined()
    writer.flush()
    expect(getJobEvents(db, jobId, 0, 10).map((event) => event.type)).toEqual(['file.change', 'file.change'])
    expect(getFileContent(db, fileContentHash(before))?.equals(before)).toBe(true)
    expect(getFileContent(db, fileContentHash(after))?.equals(after)).toBe(true)
    expect(db.prepare('SELECT count(*) AS n FROM file_contents').get()).toEqual({ n: 2 })
    writer.close()
    db.close()
  })
})
