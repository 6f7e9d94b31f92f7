import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import type { EventData, NewTraceEvent } from '../trace/events'
import { importTraceFile } from '../import/import-job'
import { otlpFormat } from '../otlp/otlp-json'
import { openDatabase, type SqliteDatabase } from './database'
import { exportJob, exportJobJsonl } from './export'
import { jsonlWithContentsFormat } from './export-contents'
import { fileContentHash, getFileContent } from './file-contents'
import { jobId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

const schema = JSON.parse(readFileSync(new URL('../../../docs/trace.schema.json', import.meta.url), 'utf8')) as object
const ajv = new Ajv2020({ allErrors: true, strict: true })
ajv.addFormat('date-time', { type: 'string', validate: (text: string) => !Number.isNaN(Date.parse(text)) })
const validateLine = ajv.compile(schema)

const secret = 'sk-test-0123456789abcdef'
const before = Buffer.from([0, 1, 2, 250, 10])
const after = Buffer.from('after\n')
const holdsKey = Buffer.from(`API_KEY=${secret}\n`)
const lost = Buffer.from('its row is gone\n')
const corrupt = Buffer.from('its row is corrupt\n')
const now = () => new Date('2025-03-01T12:00:00.000Z')

const change = (path: string, from: Buffer | null, to: Buffer): EventData<'file.change'> => ({
  path,
  kind: from ? 'modified' : 'created',
  by_tool_call: 'tc-1',
  tool: 'bash',
  bytes_before: from?.byteLength ?? null,
  bytes_after: to.byteLength,
  hash_before: from ? fileContentHash(from) : null,
  hash_after: fileContentHash(to),
  content_stored: true,
})

describe('exports with and without file contents', () => {
  const tempDir = useTempDir()

  /** The sample job, its child's tool call having changed five files; one version's row then deleted, one's bytes changed. */
  function storedJob(): SqliteDatabase {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    const events = sampleJobEvents()
    const at = events.findIndex((event) => event.type === 'tool.call')
    const place = events[at]!
    const changed = (data: EventData<'file.change'>): NewTraceEvent => ({ ...place, type: 'file.change', data }) as NewTraceEvent
    events.forEach((event, index) => {
      writer.append(event)
      if (index !== at) return
      writer.append(changed(change('a.bin', before, after)), [before, after])
      writer.append(changed(change('b.txt', null, after)), [after])
      writer.append(changed(change('.env', null, holdsKey)), [holdsKey])
      writer.append(changed(change('lost.txt', null, lost)), [lost])
      writer.append(changed(change('corrupt.txt', null, corrupt)), [corrupt])
    })
    writer.close()
    db.prepare('DELETE FROM file_contents WHERE hash = ?').run(fileContentHash(lost))
    db.prepare('UPDATE file_contents SET content = ? WHERE hash = ?').run(Buffer.from('something else'), fileContentHash(corrupt))
    return db
  }

  const lines = (file: string) =>
    readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)

  it('JSONL carries the file.change events; contents only on request, each version once before the first event naming it', async () => {
    const db = storedJob()
    const plain = join(tempDir(), 'plain.jsonl')
    await exportJobJsonl(db, jobId, plain, { now })
    expect(lines(plain).filter((line) => line.type === 'file.change')).toHaveLength(5)
    expect(lines(plain).filter((line) => line.type === 'file.content')).toEqual([])

    const full = join(tempDir(), 'full.jsonl')
    const count = await exportJob(db, jobId, full, jsonlWithContentsFormat(db, [secret]), { now })
    const written = lines(full)
    expect(count).toBe(written.length)
    for (const line of written) expect(validateLine(line), JSON.stringify(validateLine.errors)).toBe(true)
    const contents = written.filter((line) => line.type === 'file.content')
    // A row missing or corrupt gives no line, and the export goes on; a key is withheld, never written.
    expect(contents).toEqual([
      { type: 'file.content', hash: fileContentHash(before), size: 5, base64: before.toString('base64') },
      { type: 'file.content', hash: fileContentHash(after), size: 6, base64: after.toString('base64') },
      { type: 'file.content', hash: fileContentHash(holdsKey), size: holdsKey.byteLength, withheld: 'secret' },
    ])
    expect(readFileSync(full, 'utf8')).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12))
    const firstChange = written.findIndex((line) => line.type === 'file.change')
    expect(written.slice(firstChange - 2, firstChange).map((line) => line.type)).toEqual(['file.content', 'file.content'])
    // Without the contents it is the plain export, line for line.
    expect(written.filter((line) => line.type !== 'file.content')).toEqual(lines(plain))
    db.close()
  })

  it('import stores the contents again (checked against their hashes), and exporting again gives the same file', async () => {
    const db = storedJob()
    const full = join(tempDir(), 'full.jsonl')
    await exportJob(db, jobId, full, jsonlWithContentsFormat(db, [secret]), { now })
    db.close()
    const other = openDatabase(join(tempDir(), 'other.db'))
    expect(importTraceFile(other, full).events).toBeGreaterThan(0)
    expect(getFileContent(other, fileContentHash(before))?.equals(before)).toBe(true)
    expect(getFileContent(other, fileContentHash(after))?.equals(after)).toBe(true)
    expect(getFileContent(other, fileContentHash(holdsKey))).toBeUndefined()
    const again = join(tempDir(), 'again.jsonl')
    await exportJob(other, jobId, again, jsonlWithContentsFormat(other, [secret]), { now })
    // The same file, but for the withheld version, which the import could not store.
    const withoutWithheld = readFileSync(full, 'utf8')
      .split('\n')
      .filter((line) => !line.includes('"withheld"'))
      .join('\n')
    expect(readFileSync(again, 'utf8')).toBe(withoutWithheld)
    other.close()

    // A content line whose bytes are not its hash's is refused, naming its line; nothing is imported.
    const forged = readFileSync(full, 'utf8').replace(before.toString('base64'), Buffer.from('forged').toString('base64'))
    const forgedFile = join(tempDir(), 'forged.jsonl')
    writeFileSync(forgedFile, forged)
    const third = openDatabase(join(tempDir(), 'third.db'))
    expect(() => importTraceFile(third, forgedFile)).toThrow(/file\.content .*do not match/)
    expect(third.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 })
    third.close()
  })

  it('OTLP: each change is a span event on its tool call’s span, without contents', async () => {
    const db = storedJob()
    const file = join(tempDir(), 'otlp.json')
    await exportJob(db, jobId, file, otlpFormat(), { now })
    const document = JSON.parse(readFileSync(file, 'utf8')) as {
      resourceSpans: Array<{
        scopeSpans: Array<{
          spans: Array<{ name: string; events?: Array<{ name: string; attributes: Array<{ key: string; value: unknown }> }> }>
        }>
      }>
    }
    const spans = document.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
    const tool = spans.find((span) => span.name === 'execute_tool list_files')!
    expect(tool.events?.map((event) => event.name)).toEqual(Array(5).fill('arbor.file.change'))
    expect(tool.events?.[0]?.attributes).toEqual(
      expect.arrayContaining([
        { key: 'arbor.file.path', value: { stringValue: 'a.bin' } },
        { key: 'arbor.file.change.kind', value: { stringValue: 'modified' } },
        { key: 'arbor.file.bytes_before', value: { intValue: '5' } },
        { key: 'arbor.file.hash_after', value: { stringValue: fileContentHash(after) } },
      ]),
    )
    expect(spans.filter((span) => span.name !== tool.name && span.events)).toEqual([])
    db.close()
  })
})
