import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { getChanges, getFileDiff } from './changes'
import { openDatabase } from './database'
import { agentIds, changeJob } from './testing/change-fixture'
import { useTempDir } from './testing/temp-dir'

describe('changes of a scope', () => {
  const dir = useTempDir()
  const setup = () => {
    const db = openDatabase(join(dir(), 'arbor.db'))
    const project = join(dir(), 'project')
    mkdirSync(project)
    return { db, job: changeJob(db, project) }
  }

  it("gives each agent exactly its own files, its subtree its descendants' too, and the job all", () => {
    const { db, job } = setup()
    job.change('a', 'src/a.ts', 'one\ntwo\nthree\n')
    job.change('b', 'notes.md', '# notes\n')
    job.change('a1', 'src/deep.ts', 'deep\n')
    const paths = (scope: { agent_id?: string; subtree?: boolean }) =>
      getChanges(db, { job_id: 'job-1', ...scope }).files.map((file) => file.path)
    expect(paths({ agent_id: agentIds.a })).toEqual(['src/a.ts'])
    expect(paths({ agent_id: agentIds.b })).toEqual(['notes.md'])
    expect(paths({ agent_id: agentIds.a, subtree: true })).toEqual(['src/a.ts', 'src/deep.ts'])
    expect(paths({})).toEqual(['notes.md', 'src/a.ts', 'src/deep.ts'])
    expect(getChanges(db, { job_id: 'job-1' }).by_agent).toEqual({ [agentIds.a]: 1, [agentIds.b]: 1, [agentIds.a1]: 1 })
    expect(getChanges(db, { job_id: 'job-1' }, true)).toEqual({
      files: [],
      total: 3,
      more: 0,
      by_agent: { [agentIds.a]: 1, [agentIds.b]: 1, [agentIds.a1]: 1 },
    })
  })

  it('nets several changes of one file into its first before against its last after, with +/− lines and every author', () => {
    const { db, job } = setup()
    job.change('root', 'app.py', 'a\nb\nc\n')
    job.change('a', 'app.py', 'a\nB\nc\n', { call: 'call-x' })
    job.change('a', 'app.py', 'a\nB\nc\nd\n', { call: 'call-y' })
    const [file] = getChanges(db, { job_id: 'job-1', agent_id: agentIds.a }).files
    expect(file).toMatchObject({ path: 'app.py', kind: 'modified', kinds: ['modified', 'modified'], added: 2, removed: 1, binary: false })
    expect(file!.authors.map((author) => author.tool_call)).toEqual(['call-x', 'call-y'])
    const diff = getFileDiff(db, { job_id: 'job-1', agent_id: agentIds.a }, 'app.py')!
    expect(diff.hunks).toHaveLength(1)
    expect(diff.hunks[0]!.lines.map((line) => `${line.kind[0]}${line.text}`)).toEqual(['ca', 'rb', 'aB', 'cc', 'ad'])
    expect(diff.hunks[0]!.lines.find((line) => line.text === 'd')).toMatchObject({ old_line: null, new_line: 4 })
    // The hunk adds both calls' lines; its link is the latest call whose own change adds one of them.
    expect(diff.hunks[0]!.tool_call).toMatchObject({ agent_id: agentIds.a, call_id: 'call-y', seq: expect.any(Number) })
    // The job's view starts from before the root created it.
    expect(getChanges(db, { job_id: 'job-1' }).files[0]).toMatchObject({ kind: 'created', added: 4, removed: 0 })
  })

  it('follows a rename, and leaves out a file created and deleted again', () => {
    const { db, job } = setup()
    job.change('root', 'old.txt', 'x\n')
    job.change('a', 'old.txt', null, { to: 'dir/new.txt' })
    job.change('a', 'dir/new.txt', 'x\ny\n')
    job.change('a', 'tmp.txt', 'scratch')
    job.change('a', 'tmp.txt', null)
    const files = getChanges(db, { job_id: 'job-1', agent_id: agentIds.a }).files
    expect(files).toHaveLength(1)
    expect(files[0]).toMatchObject({ path: 'dir/new.txt', from_path: 'old.txt', kind: 'renamed', kinds: ['renamed', 'modified'], added: 1 })
    expect(getFileDiff(db, { job_id: 'job-1', agent_id: agentIds.a }, 'old.txt')?.file.path).toBe('dir/new.txt')
  })

  it('names a binary file and one whose content is not stored, and diffs neither', () => {
    const { db, job } = setup()
    job.change('a', 'logo.png', Buffer.from([0x89, 0x50, 0, 1, 2]))
    job.change('a', 'latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    job.change('a', 'big.log', 'pretend this was over 1 MiB', { store: false })
    const files = getChanges(db, { job_id: 'job-1', agent_id: agentIds.a }).files
    expect(files.map((file) => [file.path, file.binary, file.added])).toEqual([
      ['big.log', false, null],
      ['latin1.txt', true, null],
      ['logo.png', true, null],
    ])
    expect(files[0]!.content_missing).toMatch(/not stored/)
    expect(getFileDiff(db, { job_id: 'job-1', agent_id: agentIds.a }, 'logo.png')).toMatchObject({ hunks: [], file: { binary: true } })
    expect(getFileDiff(db, { job_id: 'job-1', agent_id: agentIds.b }, 'logo.png')).toBeUndefined()
  })
})
