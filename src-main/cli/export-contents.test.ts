import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../core/store/database'
import { fileContentHash } from '../core/store/file-contents'
import { jobId, sampleJob, sampleJobEvents } from '../core/store/testing/job-fixture'
import { TraceWriter } from '../core/store/trace-writer'
import { useCleanups } from '../core/testing/cleanups'
import type { NewTraceEvent } from '../core/trace/events'

/** `arbor export --with-file-contents` through the real CLI process, on a database holding a file change. */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const { tempDir } = useCleanups('arbor-export-contents-')

const arbor = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', cli, ...args],
      { env: { ...process.env, ARBOR_DATA_DIR: tempDir() }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })

const written = Buffer.from([0, 159, 146, 150, 10])

function databaseWithChange(): string {
  const dir = tempDir()
  const db = openDatabase(path.join(dir, 'arbor.db'))
  const writer = new TraceWriter(db)
  writer.createJob(sampleJob())
  for (const event of sampleJobEvents()) {
    writer.append(event)
    if (event.type !== 'tool.call') continue
    const data = {
      path: 'x.bin',
      kind: 'created',
      by_tool_call: 'tc-1',
      tool: 'write_file',
      bytes_before: null,
      bytes_after: written.byteLength,
      hash_before: null,
      hash_after: fileContentHash(written),
      content_stored: true,
    }
    writer.append({ ...event, type: 'file.change', data } as NewTraceEvent, [written])
  }
  writer.close()
  db.close()
  return path.join(dir, 'arbor.db')
}

describe('arbor export --with-file-contents', () => {
  it('writes each stored version as a file.content line before the event naming it; without the flag, none', async () => {
    const db = databaseWithChange()
    const withContents = path.join(tempDir(), 'with.jsonl')
    const plain = path.join(tempDir(), 'plain.jsonl')
    expect((await arbor(['export', '--db', db, '--last', '--out', withContents, '--with-file-contents'])).code).toBe(0)
    expect((await arbor(['export', '--db', db, '--job', jobId, '--out', plain])).code).toBe(0)
    const lines = readFileSync(withContents, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const at = lines.findIndex((line) => line.type === 'file.change')
    expect(lines[at - 1]).toEqual({ type: 'file.content', hash: fileContentHash(written), size: 5, base64: written.toString('base64') })
    expect(readFileSync(plain, 'utf8')).not.toContain('file.content')
    expect(readFileSync(plain, 'utf8')).toContain('"type":"file.change"')
  }, 60_000)

  it('is refused with OTLP, which carries no contents', async () => {
    const outcome = await arbor([
      'export',
      '--db',
      databaseWithChange(),
      '--last',
      '--out',
      path.join(tempDir(), 'o.json'),
      '--format',
      'otlp',
      '--with-file-contents',
    ])
    expect(outcome.code).not.toBe(0)
    expect(outcome.stderr).toContain('--with-file-contents goes with a JSONL export')
  }, 60_000)
})
