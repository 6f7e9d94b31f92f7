import fc from 'fast-check'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mutateJson, mutation } from '../testing/fuzz-mutations'
import { openDatabase, type SqliteDatabase } from './database'
import { StoreError, TraceParseError } from './errors'
import { exportJobJsonl } from './export'
import { parseTrace, TraceReader } from './import'
import { importTraceFile } from '../import/import-job'
import { sampleJob, sampleJobEvents } from './testing/job-fixture'
import { TraceWriter } from './trace-writer'

/**
 * The trace importer fed random bytes and a real exported trace damaged in the ways files get
 * damaged (cut, bytes flipped, lines duplicated, swapped or dropped, numbers made huge, values of
 * the wrong type): it imports or it refuses with a StoreError that names the problem, never
 * another exception, and a refused file leaves every table as it was. Each run imports into a
 * fresh copy of a database that already holds another job, whose ids a damage may reuse.
 */

let dir: string
let trace: string
let pristineDb: string
let run = 0

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-import-fuzz-'))
  const source = openDatabase(path.join(dir, 'source.db'))
  const writer = new TraceWriter(source, { flushDelayMs: 1000 })
  writer.createJob(sampleJob())
  for (const event of sampleJobEvents()) writer.append(event)
  writer.flush()
  const file = path.join(dir, 'trace.jsonl')
  await exportJobJsonl(source, sampleJob().id, file)
  trace = readFileSync(file, 'utf8')
  source.close()

  // The target already holds another job; a damage below gives the trace one of its agent ids.
  pristineDb = path.join(dir, 'pristine.db')
  const target = openDatabase(pristineDb)
  const other = new TraceWriter(target, { flushDelayMs: 1000 })
  const otherJob = sampleJob({ id: 'job-other' })
  other.createJob(otherJob)
  for (const event of sampleJobEvents(otherJob, undefined, { root: 'other-root', child: 'other-child' })) other.append(event)
  other.flush()
  target.close()
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

function readTables(db: SqliteDatabase): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
  // A WITHOUT ROWID table (file_contents) has no rowid: its primary key orders it.
  const order = (table: string): string => (table === 'file_contents' ? 'hash' : 'rowid')
  return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" ORDER BY ${order(table)}`).all()]))
}

/** Imports `content` into a fresh copy of the target: imported, or refused with a StoreError and no table changed. */
function checkImport(content: Buffer | string): void {
  const runDir = path.join(dir, `run-${run++}`)
  const dbFile = `${runDir}.db`
  const file = `${runDir}.jsonl`
  copyFileSync(pristineDb, dbFile)
  writeFileSync(file, content)
  const db = openDatabase(dbFile)
  try {
    const before = readTables(db)
    let result
    try {
      result = importTraceFile(db, file)
    } catch (error) {
      expect(error, `not a clear error: ${String(error)}`).toBeInstanceOf(StoreError)
      expect((error as Error).message).toMatch(/^(Trace line \d+: |Cannot import )\S/)
      // The importer's catch-all may wrap a limit hit (a value nested past the stack), never a bug.
      const cause = (error as Error).cause
      expect(
        cause instanceof TypeError || cause instanceof ReferenceError || cause instanceof SyntaxError,
        `a bug behind ${(error as Error).message}`,
      ).toBe(false)
      expect(readTables(db), `refused (${(error as Error).message}) but changed the store`).toEqual(before)
      return
    }
    expect(result).toMatchObject({ job_id: expect.any(String), events: expect.any(Number), existing: expect.any(Boolean) })
  } finally {
    db.close()
    rmSync(dbFile, { force: true })
    rmSync(`${dbFile}-wal`, { force: true })
    rmSync(`${dbFile}-shm`, { force: true })
    rmSync(file, { force: true })
  }
}

const lines = (): string[] => trace.trimEnd().split('\n')
const pick = (list: readonly string[], at: number): number => at % list.length

/** Damage a text file gets: each takes the trace's lines and returns the file's text. */
const damage: fc.Arbitrary<(text: string) => Buffer | string> = fc.oneof(
  fc.nat().map((at) => (text: string) => text.slice(0, at % (text.length + 1))),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, bits]) => (text: string) => {
    const bytes = Buffer.from(text)
    if (bytes.length === 0) return bytes
    const index = at % bytes.length
    bytes[index] = bytes[index]! ^ bits
    return bytes
  }),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 40 })).map(([at, inserted]) => (text: string) => {
    const bytes = Buffer.from(text)
    const index = at % (bytes.length + 1)
    return Buffer.concat([bytes.subarray(0, index), Buffer.from(inserted), bytes.subarray(index)])
  }),
  fc.nat().map((at) => (text: string) => {
    const all = text.trimEnd().split('\n')
    const index = pick(all, at)
    all.splice(index, 0, all[index]!)
    return all.join('\n') + '\n'
  }),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => (text: string) => {
    const all = text.trimEnd().split('\n')
    const [i, j] = [pick(all, a), pick(all, b)]
    ;[all[i], all[j]] = [all[j]!, all[i]!]
    return all.join('\n') + '\n'
  }),
  fc.nat().map((at) => (text: string) => {
    const all = text.trimEnd().split('\n')
    all.splice(pick(all, at), 1)
    return all.join('\n') + '\n'
  }),
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom(
        '1e999',
        '-1',
        '0',
        '1e308',
        '99999999999999999999999',
        '0.5',
        '-0',
        '1e-400',
        '9007199254740993',
        '"7"',
        'null',
        '[]',
      ),
    )
    .map(([at, number]) => (text: string) => {
      const numbers = [...text.matchAll(/-?\d+(\.\d+)?/g)]
      const match = numbers[at % Math.max(1, numbers.length)]
      if (!match) return text
      return text.slice(0, match.index) + number + text.slice(match.index + match[0].length)
    }),
  fc.tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([at, mutations]) => (text: string) => {
    const all = text.trimEnd().split('\n')
    const index = pick(all, at)
    let value: unknown
    try {
      // (A line made deep by the damage below is left alone: the mutation walks it recursively.)
      if (all[index]!.length > 50_000) return text
      value = JSON.parse(all[index]!)
    } catch {
      return text // an earlier damage broke this line already
    }
    all[index] = JSON.stringify(mutateJson(value, mutations)) ?? ''
    return all.join('\n') + '\n'
  }),
  // The child's id is taken by the other job: refused late, after many rows were written.
  fc.constant((text: string) => text.replaceAll('"agent-child"', '"other-child"')),
  fc.constant((text: string) => text.replaceAll('"job-1"', '"job-other"')),
  fc.constant((text: string) => `\uFEFF${text}`),
  // Nesting deep enough that a recursive walk of the value would overflow the stack.
  fc.nat().map((at) => (text: string) => {
    const all = text.trimEnd().split('\n')
    const index = pick(all, at)
    all[index] = all[index]!.replace('"data":{', `"data":{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)},`)
    return all.join('\n') + '\n'
  }),
  fc.constant((text: string) => text.replaceAll('\n', '\r\n')),
  fc.constant((text: string) => text.replaceAll('\n', '\r')),
)

describe('importTraceFile', () => {
  it('imports the undamaged trace (the seed the damage starts from is valid)', () => {
    checkImport(trace)
    const db = openDatabase(path.join(dir, 'seed.db'))
    expect(importTraceFile(db, writeTemp(trace))).toMatchObject({ events: lines().length - 1, existing: false })
    db.close()
  })

  it('refuses random bytes with a clear error and changes nothing', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 2000 }).map((array) => Buffer.from(array)),
      fc.string({ unit: 'binary', maxLength: 500 }),
      fc.jsonValue().map((value) => `${JSON.stringify(value)}\n`),
    )
    fc.assert(fc.property(bytes, checkImport), { numRuns: 250 })
  })

  it('imports or refuses a damaged trace with a clear error, and a refusal changes nothing', () => {
    fc.assert(
      fc.property(fc.array(damage, { minLength: 1, maxLength: 3 }), (damages) => {
        checkImport(damages.reduce<Buffer | string>((text, change) => change(text.toString()), trace))
      }),
      { numRuns: 300 },
    )
  })
})

describe('TraceReader', () => {
  it('refuses damaged lines only with TraceParseError', () => {
    fc.assert(
      fc.property(fc.array(damage, { minLength: 1, maxLength: 3 }), (damages) => {
        const text = damages.reduce<Buffer | string>((current, change) => change(current.toString()), trace).toString()
        try {
          parseTrace(text)
          const reader = new TraceReader(() => undefined)
          for (const line of text.split('\n')) reader.push(line)
          reader.finishComplete()
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(TraceParseError)
        }
      }),
      { numRuns: 300 },
    )
  })
})

function writeTemp(content: string): string {
  const file = path.join(dir, `seed-${run++}.jsonl`)
  writeFileSync(file, content)
  return file
}
