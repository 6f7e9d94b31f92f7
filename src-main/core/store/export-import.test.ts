import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { newEvent } from '../trace/events'
import { addCost, addUsage, emptyUsage } from '../trace/usage'
import { openDatabase, type SqliteDatabase } from './database'
import { TraceParseError } from './errors'
import { exportJobJsonl, traceEventLine, traceEventLineSql } from './export'
import { jobFromTrace, parseTrace, readTraceFile, treeFromTrace } from './import'
import { getAgents, getJob } from './queries'
import type { EventRow } from './rows'
import { jobId, jobUsage, rootId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

const exportedAt = () => new Date('2025-03-01T12:00:00.000Z')

describe('export and import', () => {
  const tempDir = useTempDir()

  function storedJob(): { db: SqliteDatabase; writer: TraceWriter } {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    for (const event of sampleJobEvents()) writer.append(event)
    writer.flush()
    return { db, writer }
  }

  it('writes the header line exactly, then one line per event in seq order', async () => {
    const { db } = storedJob()
    const file = join(tempDir(), 'out', '..', 'trace.jsonl')
    const lines = await exportJobJsonl(db, jobId, file, { now: exportedAt })
    const text = readFileSync(file, 'utf8')
    const rows = text.trimEnd().split('\n')
    expect(lines).toBe(rows.length)
    expect(rows).toHaveLength(1 + sampleJobEvents().length)
    const job = sampleJob()
    expect(rows[0]).toBe(
      '{"type":"trace.header","format":"arbor-trace","version":1,"job":{"id":"job-1","project":"/projects/demo",' +
        `"task":"Describe the project layout","settings":${JSON.stringify(job.settings)},"status":"completed",` +
        '"created_at":"2025-03-01T09:59:59.000Z"},"exported_at":"2025-03-01T12:00:00.000Z"}',
    )
    const events = rows.slice(1).map((row) => JSON.parse(row) as Record<string, unknown>)
    expect(events.map((event) => Object.keys(event))).toEqual(
      events.map(() => ['type', 'seq', 'ts', 'job_id', 'agent_id', 'parent_id', 'depth', 'data']),
    )
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(readdirSync(tempDir()).filter((name) => name.endsWith('.tmp'))).toEqual([])
    db.close()
  })

  it('round-trips: export, parse, same tree and the same totals as the store', async () => {
    const { db } = storedJob()
    const file = join(tempDir(), 'trace.jsonl')
    await exportJobJsonl(db, jobId, file, { now: exportedAt })
    const fromText = parseTrace(readFileSync(file, 'utf8'))
    const fromFile = await readTraceFile(file)
    expect(fromFile).toEqual(fromText)

    const stored = getAgents(db, jobId)
    const rebuilt = treeFromTrace(fromText.events)
    expect(rebuilt).toEqual(stored)
    expect(rebuilt.map(({ id, parent_id, depth, status }) => ({ id, parent_id, depth, status }))).toEqual([
      { id: rootId, parent_id: null, depth: 0, status: 'completed' },
      { id: 'agent-child', parent_id: rootId, depth: 1, status: 'completed' },
    ])

    const job = jobFromTrace(fromText)
    expect(job).toEqual(getJob(db, jobId))
    const summed = rebuilt.reduce(
      (total, agent) => ({ usage: addUsage(total.usage, agent.usage), cost: addCost(total.cost, agent.cost_usd) }),
      { usage: emptyUsage(), cost: null as number | null },
    )
    expect(summed).toEqual({ usage: jobUsage, cost: 0.875 })
    expect(job.usage).toEqual(summed.usage)
    db.close()
  })

  it('streams with backpressure while the writer keeps committing on the same connection', async () => {
    const { db, writer } = storedJob()
    const extra = sampleJobEvents().slice(2, 3)
    for (let index = 0; index < 3000; index++) writer.append(newEvent('message', extra[0]!, { role: 'user', content: `line ${index}` }))
    writer.flush()
    const chunks: string[] = []
    let drains = 0
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString())
        setImmediate(done)
      },
    })
    slow.on('drain', () => {
      drains++
      // The export holds no open iterator while it waits: the writer can commit meanwhile.
      if (drains === 1) {
        writer.append(newEvent('message', extra[0]!, { role: 'user', content: 'written during export' }))
        writer.flush()
      }
    })
    const lines = await exportJobJsonl(db, jobId, slow, { now: exportedAt, chunkRows: 100 })
    expect(drains).toBeGreaterThan(10)
    expect(lines).toBe(1 + 18 + 3000) // events committed after the export began are not in it
    // The export hands its last lines to the stream; they reach `write` once the stream drains.
    await new Promise((resolve) => slow.end(resolve))
    const parsed = parseTrace(chunks.join(''))
    expect(parsed.events).toHaveLength(lines - 1)
    db.close()
  })

  it('writes every event of its job once, in seq order, across chunks of changing size', async () => {
    const { db, writer } = storedJob()
    writer.createJob({ ...sampleJob(), id: 'job-other' })
    const template = sampleJobEvents()[2]!
    const otherEvent = db.prepare(
      "INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES ('job-other', NULL, NULL, NULL, 'message', ?, ?)",
    )
    // Short and long events of two jobs interleaved, so chunks grow, shrink and skip the other job's rows.
    for (let index = 0; index < 1500; index++) {
      const content = index % 300 < 150 ? `short ${index}` : `long ${index} ${'x'.repeat(20_000)}`
      writer.append(newEvent('message', template, { role: 'user', content }))
      writer.flush()
      otherEvent.run(template.ts, JSON.stringify({ role: 'user', content: `other ${index}` }))
    }
    const file = join(tempDir(), 'interleaved.jsonl')
    const lines = await exportJobJsonl(db, jobId, file, { now: exportedAt })
    const rows = db
      .prepare<[string], EventRow>(
        'SELECT seq, job_id, agent_id, parent_id, depth, type, ts, data FROM events WHERE job_id = ? ORDER BY seq',
      )
      .all(jobId)
    expect(lines).toBe(1 + 18 + 1500)
    expect(readFileSync(file, 'utf8').split('\n').slice(1).join('\n')).toBe(rows.map(traceEventLine).join(''))
    db.close()
  })

  it('hands a stream chunks near 512 KiB however long the events are', async () => {
    const { db, writer } = storedJob()
    const template = sampleJobEvents()[2]!
    for (let index = 0; index < 400; index++)
      writer.append(newEvent('message', template, { role: 'user', content: `${index} ${'y'.repeat(50_000)}` }))
    writer.flush()
    const sizes: number[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        sizes.push(chunk.length)
        done()
      },
    })
    await exportJobJsonl(db, jobId, sink, { now: exportedAt })
    // The header, then a first chunk of 64 rows read before any size is known, then chunks sized from the last.
    const later = sizes.slice(2)
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(400 * 50_000)
    expect(later.length).toBeGreaterThan(20)
    expect(Math.max(...later)).toBeLessThanOrEqual(1024 * 1024)
    db.close()
  })

  it('builds in SQLite exactly the line traceEventLine builds, whatever the strings hold', () => {
    const { db } = storedJob()
    const awkward = [
      'quote " and backslash \\',
      'controls \u0000\u0001\b\f\n\r\t\u001f\u007f',
      'line sep \u2028\u2029',
      'é 中文 😀',
      'lone \ud800 surrogate',
      '',
    ]
    const insert = db.prepare(
      'INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data, source_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    for (const [index, text] of awkward.entries()) {
      insert.run(
        jobId,
        text,
        index % 2 ? null : text,
        index % 2 ? null : index,
        'message',
        text,
        JSON.stringify({ content: text }),
        index % 3 ? null : 1000 + index,
      )
    }
    const exportedSeq = 'COALESCE(source_seq, seq)'
    const rows = db
      .prepare<[string], EventRow>(
        `SELECT ${exportedSeq} AS seq, job_id, agent_id, parent_id, depth, type, ts, data FROM events WHERE job_id = ? ORDER BY events.seq`,
      )
      .all(jobId)
    const lines = db
      .prepare<[string], string>(`SELECT ${traceEventLineSql(exportedSeq)} FROM events WHERE job_id = ? ORDER BY events.seq`)
      .pluck()
      .all(jobId)
    expect(rows).toHaveLength(sampleJobEvents().length + awkward.length)
    expect(lines).toEqual(rows.map(traceEventLine))
    db.close()
  })

  it('fails for an unknown job and leaves no file behind', async () => {
    const { db } = storedJob()
    const file = join(tempDir(), 'missing.jsonl')
    await expect(exportJobJsonl(db, 'no-such-job', file)).rejects.toThrow('Job no-such-job not found')
    expect(existsSync(file)).toBe(false)
    expect(readdirSync(tempDir()).filter((name) => name.endsWith('.tmp'))).toEqual([])
    db.close()
  })
})

describe('parseTrace errors name the line', () => {
  const tempDir = useTempDir()

  async function exportedLines(): Promise<string[]> {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db)
    writer.createJob(sampleJob())
    for (const event of sampleJobEvents()) writer.append(event)
    writer.close()
    const file = join(tempDir(), 'trace.jsonl')
    await exportJobJsonl(db, jobId, file, { now: exportedAt })
    db.close()
    return readFileSync(file, 'utf8').trimEnd().split('\n')
  }

  const errorOf = (text: string): TraceParseError => {
    try {
      parseTrace(text)
    } catch (error) {
      if (error instanceof TraceParseError) return error
      throw error
    }
    throw new Error('expected a TraceParseError')
  }

  it('reports broken JSON with its line number', async () => {
    const lines = await exportedLines()
    lines[4] = lines[4]!.slice(0, 30)
    const error = errorOf(lines.join('\n'))
    expect(error.line).toBe(5)
    expect(error.message).toMatch(/^Trace line 5: not valid JSON/)
  })

  it('reports a field of the wrong type, with the field and the event type', async () => {
    const lines = await exportedLines()
    lines[6] = lines[6]!.replace(/"seq":6,/, '"seq":"6",')
    const error = errorOf(lines.join('\n'))
    expect(error.message).toMatch(/^Trace line 7: invalid event \(type "subagent.request"\): seq: .*number/)
  })

  it('reports unknown event types, out-of-order seq, a foreign job and a missing header', async () => {
    const lines = await exportedLines()
    expect(errorOf([...lines.slice(0, 3), lines[2]!.replace('"type":"agent.start"', '"type":"agent.nap"')].join('\n')).message).toMatch(
      /^Trace line 4: invalid event \(type "agent.nap"\): type:/,
    )
    expect(errorOf([...lines.slice(0, 3), lines[2]!].join('\n')).message).toBe(
      "Trace line 4: seq 2 is not greater than the previous event's seq 2",
    )
    expect(errorOf([lines[0]!, lines[1]!.replace('"job_id":"job-1"', '"job_id":"job-2"')].join('\n')).message).toBe(
      "Trace line 2: job_id job-2 does not match the header's job job-1",
    )
    expect(errorOf(lines.slice(1).join('\n')).message).toBe('Trace line 1: expected the trace.header line first, found type "job.start"')
    expect(errorOf('\n\n').line).toBe(3)
    expect(errorOf(lines[0]!.replace('"version":1', '"version":2')).message).toMatch(/version 2 is newer/)
  })

  it('accepts CRLF line ends and blank lines', async () => {
    const lines = await exportedLines()
    const parsed = parseTrace(lines.join('\r\n') + '\r\n\r\n')
    expect(parsed.events).toHaveLength(lines.length - 1)
    writeFileSync(join(tempDir(), 'crlf.jsonl'), lines.join('\r\n'))
    expect((await readTraceFile(join(tempDir(), 'crlf.jsonl'))).events).toHaveLength(lines.length - 1)
  })
})
