import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../store/database'
import { fileContentHash, getFileContent } from '../store/file-contents'
import { complete, createTestRig, type TestRig } from './testing'
import type { EventData } from '../trace/events'

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const write = (path: string, content: string) => ({ name: 'write_file', arguments: { path, content } })

/** Real agent processes (scripted model) writing and editing real files; the trace and the content store read back from SQLite. */
describe('write_file and edit_file record file.change events', () => {
  it('one per call that changed a file, with the call, sizes, hashes and both versions stored; none for a write of equal bytes', async () => {
    rig = createTestRig()
    const { engine, project } = rig
    const jobId = rig.start({
      root: [
        { tool_calls: [write('src/new.txt', 'one\ntwo\n')] },
        { tool_calls: [write('src/new.txt', 'one\ntwo\n')] },
        { tool_calls: [{ name: 'edit_file', arguments: { path: 'src/new.txt', old_string: 'two', new_string: 'zwei' } }] },
        { tool_calls: [write('README.md', 'replaced\n')] },
        complete('done'),
      ],
      children: {},
    })
    await engine.waitForJob(jobId)
    expect(readFileSync(join(project, 'src', 'new.txt'), 'utf8')).toBe('one\nzwei\n')

    const calls = rig.events.filter((event) => event.type === 'tool.call').map((event) => (event.data as { call_id: string }).call_id)
    const changes = rig.events.filter((event) => event.type === 'file.change').map((event) => event.data as EventData<'file.change'>)
    const readme = '# Fixture project\n\nA small project for supervisor tests.\n'
    const hash = (text: string) => fileContentHash(Buffer.from(text))
    expect(changes).toEqual([
      {
        path: 'src/new.txt',
        kind: 'created',
        by_tool_call: calls[0],
        tool: 'write_file',
        bytes_before: null,
        bytes_after: 8,
        hash_before: null,
        hash_after: hash('one\ntwo\n'),
        content_stored: true,
      },
      {
        path: 'src/new.txt',
        kind: 'modified',
        by_tool_call: calls[2],
        tool: 'edit_file',
        bytes_before: 8,
        bytes_after: 9,
        hash_before: hash('one\ntwo\n'),
        hash_after: hash('one\nzwei\n'),
        content_stored: true,
      },
      {
        path: 'README.md',
        kind: 'modified',
        by_tool_call: calls[3],
        tool: 'write_file',
        bytes_before: Buffer.byteLength(readme),
        bytes_after: 9,
        hash_before: hash(readme),
        hash_after: hash('replaced\n'),
        content_stored: true,
      },
    ])
    // Each event comes between its call and its result.
    const order = rig.events.filter((event) => event.agent_id !== null).map((event) => event.type)
    expect(order.indexOf('file.change')).toBeGreaterThan(order.indexOf('tool.call'))

    const db = openDatabase(join(dirname(project), 'arbor.db'))
    try {
      for (const text of ['one\ntwo\n', 'one\nzwei\n', readme, 'replaced\n']) {
        expect(getFileContent(db, hash(text))?.toString('utf8')).toBe(text)
      }
      expect(db.prepare('SELECT count(*) AS n FROM file_contents').get()).toEqual({ n: 4 })
    } finally {
      db.close()
    }
  }, 60_000)
})
