import { execFileSync } from 'node:child_process'
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ChangeTracker } from './change-tracker'
import { versionOf, type FileChange } from '../../protocol/file-change'

/** The tracker on real folders, a real git where it says so; each "command" is a function changing files itself. */
const dirs: string[] = []
const trackers: ChangeTracker[] = []
afterEach(() => {
  for (const tracker of trackers.splice(0)) tracker.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function project(files: Record<string, string>, git = false): { dir: string; tracker: ChangeTracker } {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-tracker-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  if (git) {
    const run = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: dir, stdio: 'ignore' })
    run('init', '-q')
    run('add', '.')
    run('commit', '-q', '-m', 'start')
  }
  const tracker = new ChangeTracker(dir)
  trackers.push(tracker)
  return { dir, tracker }
}

async function changesOf(tracker: ChangeTracker, command: () => void): Promise<Array<Pick<FileChange, 'path' | 'kind' | 'from_path'>>> {
  const found: FileChange[] = []
  await tracker.around(
    async () => command(),
    (change) => found.push(change),
  )
  return found.map(({ path, kind, from_path }) => ({ path, kind, ...(from_path ? { from_path } : {}) }))
}

describe.each([false, true])('ChangeTracker (git: %s)', (git) => {
  it('records nothing for a file only touched, or rewritten with the same bytes', async () => {
    const { dir, tracker } = project({ 'a.txt': 'same\n' }, git)
    expect(
      await changesOf(tracker, () => {
        utimesSync(join(dir, 'a.txt'), new Date(2000, 1, 1), new Date(2000, 1, 1))
        writeFileSync(join(dir, 'a.txt'), 'same\n')
      }),
    ).toEqual([])
  })

  it('tells a move (same bytes) from a delete and a create of other bytes', async () => {
    const { dir, tracker } = project({ 'a.txt': 'moved\n', 'b.txt': 'removed\n' }, git)
    expect(
      await changesOf(tracker, () => {
        renameSync(join(dir, 'a.txt'), join(dir, 'c.txt'))
        rmSync(join(dir, 'b.txt'))
        writeFileSync(join(dir, 'd.txt'), 'another\n')
      }),
    ).toEqual([
      { path: 'b.txt', kind: 'deleted' },
      { path: 'c.txt', kind: 'renamed', from_path: 'a.txt' },
      { path: 'd.txt', kind: 'created' },
    ])
  })

  it('leaves out what this agent’s write_file recorded while the command ran, and knows it as the next before', async () => {
    const { dir, tracker } = project({ 'a.txt': 'one\n' }, git)
    const written = (): FileChange => ({ path: 'w.txt', kind: 'created', before: null, after: versionOf(Buffer.from('w\n')) })
    expect(
      await changesOf(tracker, () => {
        writeFileSync(join(dir, 'w.txt'), 'w\n')
        tracker.noteWrite(written())
        writeFileSync(join(dir, 'a.txt'), 'two\n')
      }),
    ).toEqual([{ path: 'a.txt', kind: 'modified' }])
    const found: FileChange[] = []
    await tracker.around(
      async () => writeFileSync(join(dir, 'w.txt'), 'w2\n'),
      (change) => found.push(change),
    )
    expect(found).toMatchObject([{ path: 'w.txt', kind: 'modified', before: { hash: versionOf(Buffer.from('w\n')).hash } }])
  })
})
