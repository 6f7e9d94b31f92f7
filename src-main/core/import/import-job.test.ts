import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase, type SqliteDatabase } from '../store/database'
import { TraceParseError } from '../store/errors'
import { exportJobJsonl } from '../store/export'
import { importTraceFile } from './import-job'
import { getAgents, getJob, listJobs } from '../store/queries'
import { jobId, sampleJob, sampleJobEvents } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { TraceWriter } from '../store/trace-writer'

/** A job stored in its own database among other jobs, so its seqs are not 1..n, then exported. */
async function exportedTrace(dir: string): Promise<{ file: string; lines: string[]; source: SqliteDatabase }> {
  const source = openDatabase(join(dir, 'source.db'))
  const writer = new TraceWriter(source, { flushDelayMs: 1000 })
  const other = sampleJob({ id: 'job-other' })
  writer.createJob(other)
  for (const event of sampleJobEvents(other, undefined, { root: 'other-root', child: 'other-child' }).slice(0, 3)) writer.append(event)
  writer.createJob(sampleJob())
  for (const event of sampleJobEvents()) writer.append(event)
  writer.flush()
  const file = join(dir, 'trace.jsonl')
  await exportJobJsonl(source, jobId, file)
  return { file, lines: readFileSync(file, 'utf8').trimEnd().split('\n'), source }
}

const withoutExportedAt = (line: string): string => line.replace(/"exported_at":"[^"]+"/, '"exported_at":""')

describe('importTraceFile', () => {
  const tempDir = useTempDir()

  it('imports a trace read-only, with the same tree, and exports it again line for line', async () => {
    const { file, lines, source } = await exportedTrace(tempDir())
    const db = openDatabase(join(tempDir(), 'target.db'))
    const result = importTraceFile(db, file)
    expect(result).toEqual({ job_id: jobId, events: lines.length - 1, existing: false })
    expect(getJob(db, jobId)).toEqual({ ...getJob(source, jobId), imported: true })
    expect(getAgents(db, jobId)).toEqual(getAgents(source, jobId))
    const again = join(tempDir(), 'again.jsonl')
    await exportJobJsonl(db, jobId, again)
    expect(readFileSync(again, 'utf8').trimEnd().split('\n').map(withoutExportedAt)).toEqual(lines.map(withoutExportedAt))
    expect(importTraceFile(db, file)).toEqual({ job_id: jobId, events: 0, existing: true })
    db.close()
    source.close()
  })

  it('refuses a file with one bad line, naming it, and imports none of it', async () => {
    const { file, lines, source } = await exportedTrace(tempDir())
    source.close()
    const broken = [...lines]
    const at = broken.findIndex((line) => line.includes('"depth":1'))
    expect(at).toBeGreaterThan(5)
    broken[at] = broken[at]!.replace('"depth":1', '"depth":"one"')
    writeFileSync(file, broken.join('\n') + '\n')
    const db = openDatabase(join(tempDir(), 'target.db'))
    const error = (() => {
      try {
        importTraceFile(db, file)
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(TraceParseError)
    expect((error as TraceParseError).line).toBe(at + 1)
    expect(String((error as Error).message)).toContain(`Trace line ${at + 1}: invalid event`)
    expectNothingImported(db)
  })

  it('refuses a truncated file: cut inside a line, or before its job.end', async () => {
    const { file, lines, source } = await exportedTrace(tempDir())
    source.close()
    const db = openDatabase(join(tempDir(), 'target.db'))
    const text = lines.join('\n')
    writeFileSync(file, text.slice(0, text.length - 25))
    expect(() => importTraceFile(db, file)).toThrow(`Trace line ${lines.length}: not valid JSON`)
    expectNothingImported(db)
    writeFileSync(file, lines.slice(0, -1).join('\n') + '\n')
    expect(() => importTraceFile(db, file)).toThrow(/looks truncated/)
    expectNothingImported(db)
  })

  it('refuses a trace whose agent ids belong to another job here', async () => {
    const { file, source } = await exportedTrace(tempDir())
    const text = readFileSync(file, 'utf8').replaceAll('"job-1"', '"job-copy"')
    writeFileSync(file, text)
    expect(() => importTraceFile(source, file)).toThrow(/agent agent-root already belongs to job job-1/)
    expect(getJob(source, 'job-copy')).toBeUndefined()
    source.close()
  })

  it('never echoes the content of a file that is not a trace', () => {
    const db = openDatabase(join(tempDir(), 'target.db'))
    const file = join(tempDir(), 'secrets.txt')
    writeFileSync(file, 'root:SECRET-PASSWORD-HASH:0:0:root:/root:/bin/bash\n')
    expect(() => importTraceFile(db, file)).toThrow(/^Trace line 1: not valid JSON$/)
    writeFileSync(file, '{"type":"trace.header","token":"SECRET-TOKEN-1"')
    expect(() => importTraceFile(db, file)).toThrow(/^Trace line 1: not valid JSON \(at column \d+\)$/)
    db.close()
  })

  it('refuses a trace whose costs or usage are not numbers, naming the line and the field, and stores nothing', async () => {
    // Found by the importer's fuzz test: a cost of [] once reached a SQLite column and failed there.
    // The event union now refuses it at the line, before anything is stored.
    const { lines, source } = await exportedTrace(tempDir())
    source.close()
    const at = lines.findIndex((line) => line.includes('"type":"llm.call"'))
    const damaged = lines.map((line, index) => (index === at ? line.replace(/"cost_usd":[^,}]+/, '"cost_usd":[]') : line))
    const file = join(tempDir(), 'damaged.jsonl')
    writeFileSync(file, damaged.join('\n') + '\n')
    const db = openDatabase(join(tempDir(), 'target.db'))
    expect(() => importTraceFile(db, file)).toThrow(
      `line ${at + 1}: invalid event (type "llm.call"): data.cost_usd: Invalid input: expected number, received array`,
    )
    const usage = lines.map((line, index) => (index === at ? line.replace(/"usage":\{[^}]*\}/, '"usage":"lots"') : line))
    writeFileSync(file, usage.join('\n') + '\n')
    expect(() => importTraceFile(db, file)).toThrow(
      /invalid event \(type "llm.call"\): data.usage: Invalid input: expected object, received string/,
    )
    expectNothingImported(db)
    db.close()
  })

  it('names a missing file', () => {
    const db = openDatabase(join(tempDir(), 'target.db'))
    expect(() => importTraceFile(db, join(tempDir(), 'nope.jsonl'))).toThrow(/Cannot read .*nope\.jsonl: ENOENT/)
    db.close()
  })
})

function expectNothingImported(db: SqliteDatabase): void {
  expect(listJobs(db)).toEqual([])
  expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 })
  expect(db.prepare('SELECT count(*) AS n FROM agents').get()).toEqual({ n: 0 })
  expect(db.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 })
}
