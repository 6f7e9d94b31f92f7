import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { getChanges } from '../store/changes'
import { openDatabase } from '../store/database'
import { getAgent, getJob, getJobEvents } from '../store/queries'
import { agentIds, changeJob, type AgentName } from '../store/testing/change-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { revertChanges } from './revert-changes'

describe('revert changes', () => {
  const dir = useTempDir()
  const setup = () => {
    const db = openDatabase(join(dir(), 'arbor.db'))
    const project = join(dir(), 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'shared.txt'), 'base\n')
    writeFileSync(join(project, 'gone.txt'), 'keep me\n')
    const job = changeJob(db, project)
    const revert = (name: AgentName, subtree = false) =>
      revertChanges(db, job.writer, getJob(db, 'job-1')!, getAgent(db, agentIds[name])!, subtree)
    const read = (path: string) => (existsSync(join(project, path)) ? readFileSync(join(project, path), 'utf8') : null)
    return { db, job, project, revert, read }
  }

  it("puts back one agent's modify, create, delete and rename and leaves the other's work", () => {
    const { db, job, revert, read } = setup()
    job.change('root', 'old-name.txt', 'moved\n')
    job.change('a', 'shared.txt', 'base\nby a\n')
    job.change('a', 'new.txt', 'fresh\n')
    job.change('a', 'gone.txt', null)
    job.change('a', 'old-name.txt', null, { to: 'moved/new-name.txt' })
    job.change('b', 'b-only.txt', 'b was here\n')
    for (const name of ['a', 'b'] as const) job.end(name)
    const result = revert('a')
    expect(result).toEqual({ reverted: true, files: expect.arrayContaining(['shared.txt', 'new.txt', 'gone.txt', 'old-name.txt']) })
    expect([read('shared.txt'), read('new.txt'), read('gone.txt'), read('old-name.txt'), read('moved/new-name.txt')]).toEqual([
      'base\n',
      null,
      'keep me\n',
      'moved\n',
      null,
    ])
    expect(read('b-only.txt')).toBe('b was here\n')
    // Recorded: a control, then one file.change per file by tool `revert`, after which a has no net change left.
    const events = getJobEvents(db, 'job-1', 0, 1000)
    expect(events.find((event) => event.type === 'control')?.data).toMatchObject({ action: 'revert_changes', target: agentIds.a })
    const reverts = events.filter((event) => event.type === 'file.change' && event.data.tool === 'revert')
    expect(reverts).toHaveLength(4)
    expect(getChanges(db, { job_id: 'job-1', agent_id: agentIds.a }).files).toEqual([])
    expect(getChanges(db, { job_id: 'job-1', agent_id: agentIds.b }).files.map((file) => file.path)).toEqual(['b-only.txt'])
  })

  it('refuses, naming the later agent, when another agent changed the file afterwards, and writes nothing', () => {
    const { job, revert, read } = setup()
    job.change('a', 'new.txt', 'from a\n')
    job.change('a', 'shared.txt', 'base\na\n')
    job.change('b', 'shared.txt', 'base\na\nb\n')
    for (const name of ['a', 'b'] as const) job.end(name)
    const result = revert('a')
    expect(result.reverted).toBe(false)
    if (result.reverted) return
    expect(result.blocks).toEqual([
      expect.objectContaining({ path: 'shared.txt', reason: 'later_change', agent_id: agentIds.b, label: 'b' }),
    ])
    expect(result.message).toMatch(/shared\.txt was changed later by b \(agent-b/)
    // All or nothing: new.txt, which nothing blocked, is still there.
    expect([read('new.txt'), read('shared.txt')]).toEqual(['from a\n', 'base\na\nb\n'])
    // The subtree holding both reverts them together.
    job.end('root')
    job.end('a1')
    expect(revert('root', true)).toMatchObject({ reverted: true })
    expect([read('new.txt'), read('shared.txt')]).toEqual([null, 'base\n'])
  })

  it('refuses while an agent of the scope runs, when the disk differs, and when a before is not stored', () => {
    const { job, project, revert } = setup()
    job.change('a1', 'x.txt', 'x\n')
    job.change('a', 'shared.txt', 'edited\n', { store: false })
    job.change('b', 'y.txt', 'y\n')
    job.end('a')
    job.end('b')
    // Every reason is listed, not just the first.
    const subtree = revert('a', true)
    expect(subtree.reverted).toBe(false)
    expect(subtree.reverted ? [] : subtree.blocks.map((block) => [block.reason, block.agent_id ?? block.path])).toEqual([
      ['running', agentIds.a1],
      ['content_missing', 'shared.txt'],
    ])
    expect(revert('a')).toMatchObject({
      reverted: false,
      blocks: [expect.objectContaining({ path: 'shared.txt', reason: 'content_missing' })],
    })
    writeFileSync(join(project, 'y.txt'), 'changed by hand\n')
    expect(revert('b')).toMatchObject({ reverted: false, blocks: [expect.objectContaining({ path: 'y.txt', reason: 'disk_differs' })] })
  })
})
