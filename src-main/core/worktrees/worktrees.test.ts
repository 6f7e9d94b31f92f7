import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { git } from './git'
import { commitWorktree, createWorktree, listWorktrees, mergeWorktree, removeWorktree, WorktreeRefused } from './worktrees'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-wt-'))
  folders.push(dir)
  execFileSync('git', ['init', '-q', '-b', 'main', dir])
  writeFileSync(join(dir, 'shared.txt'), 'one\ntwo\nthree\n')
  writeFileSync(join(dir, '.gitignore'), 'ignored.log\n')
  git(dir, ['add', '-A'])
  git(dir, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'])
  return dir
}

/** Every file of the work tree (not .git) with its bytes: what "nothing applied" is compared on. */
function treeBytes(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      if (name === '.git') continue
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else files[relative(dir, path)] = readFileSync(path).toString('base64')
    }
  }
  walk(dir)
  return files
}

describe('worktrees', () => {
  it("forks from the parent's uncommitted state and leaves its index and HEAD alone", () => {
    const dir = repo()
    writeFileSync(join(dir, 'shared.txt'), 'one\nTWO\nthree\n')
    writeFileSync(join(dir, 'new.txt'), 'untracked\n')
    writeFileSync(join(dir, 'ignored.log'), 'not taken\n')
    git(dir, ['add', 'new.txt'])
    const indexBefore = git(dir, ['ls-files', '--stage'])
    const headBefore = git(dir, ['rev-parse', 'HEAD'])
    writeFileSync(join(dir, 'later.txt'), 'untracked, not added\n')

    const worktree = createWorktree({ parentDir: dir, jobId: 'job_1', agentId: 'agent_abcdef123', label: 'Fix the Parser!' })
    expect(worktree.branch).toBe('arbor/job-1/fix-the-parser-def123')
    expect(readFileSync(join(worktree.path, 'shared.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    expect(readFileSync(join(worktree.path, 'new.txt'), 'utf8')).toBe('untracked\n')
    expect(readFileSync(join(worktree.path, 'later.txt'), 'utf8')).toBe('untracked, not added\n')
    expect(existsSync(join(worktree.path, 'ignored.log'))).toBe(false)
    expect(git(dir, ['ls-files', '--stage'])).toBe(indexBefore)
    expect(git(dir, ['rev-parse', 'HEAD'])).toBe(headBefore)
    expect(git(dir, ['status', '--porcelain'])).not.toContain('arbor')
  })

  it('a subfolder project gets the same subfolder of the worktree', () => {
    const dir = repo()
    mkdirSync(join(dir, 'pkg'))
    writeFileSync(join(dir, 'pkg', 'a.txt'), 'a\n')
    const worktree = createWorktree({ parentDir: join(dir, 'pkg'), jobId: 'j', agentId: 'a1', label: 'sub' })
    expect(worktree.project_dir).toBe(join(worktree.path, 'pkg'))
    expect(readFileSync(join(worktree.project_dir, 'a.txt'), 'utf8')).toBe('a\n')
  })

  it('refuses a folder that is not a git repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-norepo-'))
    folders.push(dir)
    expect(() => createWorktree({ parentDir: dir, jobId: 'j', agentId: 'a', label: 'x' })).toThrow(WorktreeRefused)
    expect(() => createWorktree({ parentDir: dir, jobId: 'j', agentId: 'a', label: 'x' })).toThrow(/needs a git repository/)
  })

  it('two children change one file differently: the first merges, the second conflicts and applies nothing; discard keeps the branch', () => {
    const dir = repo()
    const first = createWorktree({ parentDir: dir, jobId: 'j', agentId: 'agent_1', label: 'first' })
    const second = createWorktree({ parentDir: dir, jobId: 'j', agentId: 'agent_2', label: 'second' })
    writeFileSync(join(first.path, 'shared.txt'), 'one\nfirst\nthree\n')
    writeFileSync(join(first.path, 'added.txt'), 'by first\n')
    writeFileSync(join(second.path, 'shared.txt'), 'one\nsecond\nthree\n')
    rmSync(join(second.path, '.gitignore'))

    const firstCommit = commitWorktree(first, 'first', 'change it the first way')
    expect(firstCommit.files.sort()).toEqual(['added.txt', 'shared.txt'])
    expect(commitWorktree(second, 'second', 'change it the second way').files.sort()).toEqual(['.gitignore', 'shared.txt'])
    const author = git(dir, ['log', '-1', '--format=%an <%ae>|%s', first.branch]).trim()
    expect(author).toBe('Arbor agent first <arbor@localhost>|change it the first way')
    expect(git(dir, ['branch', '--list', 'arbor/*']).split('\n').filter(Boolean)).toHaveLength(2)

    const headBefore = git(dir, ['rev-parse', 'HEAD'])
    expect(mergeWorktree(first)).toMatchObject({ ok: true, files: ['added.txt', 'shared.txt'] })
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toBe('one\nfirst\nthree\n')
    expect(readFileSync(join(dir, 'added.txt'), 'utf8')).toBe('by first\n')
    expect(git(dir, ['rev-parse', 'HEAD'])).toBe(headBefore)
    expect(removeWorktree(first, false)).toBe(true)
    expect(existsSync(first.path)).toBe(false)

    const before = treeBytes(dir)
    const outcome = mergeWorktree(second)
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.conflicts.map((conflict) => conflict.path)).toEqual(['shared.txt'])
    expect(outcome.conflicts[0]!.hunks[0]).toMatch(/^<<<<<<< parent's folder\n[\s\S]*first[\s\S]*=======[\s\S]*second[\s\S]*>>>>>>> /)
    // Nothing applied: not even the second child's clean change (.gitignore deleted).
    expect(treeBytes(dir)).toEqual(before)

    expect(listWorktrees(dir).map((listed) => listed.branch)).toEqual([second.branch])
    expect(removeWorktree(second, true)).toBe(true)
    expect(existsSync(second.path)).toBe(false)
    expect(listWorktrees(dir)).toEqual([])
    expect(git(dir, ['branch', '--list', 'arbor/*']).split('\n').filter(Boolean)).toHaveLength(2)
  })

  it('a worktree with uncommitted changes is not removed without force', () => {
    const dir = repo()
    const worktree = createWorktree({ parentDir: dir, jobId: 'j', agentId: 'a9', label: 'dirty' })
    writeFileSync(join(worktree.path, 'wip.txt'), 'wip\n')
    expect(() => removeWorktree(worktree, false)).toThrow(/uncommitted changes/)
    expect(existsSync(worktree.path)).toBe(true)
  })

  it('a nested child forks from its parent worktree', () => {
    const dir = repo()
    const parent = createWorktree({ parentDir: dir, jobId: 'j', agentId: 'p1', label: 'parent' })
    writeFileSync(join(parent.path, 'shared.txt'), 'parent edit\n')
    const child = createWorktree({ parentDir: parent.project_dir, jobId: 'j', agentId: 'c1', label: 'child' })
    expect(readFileSync(join(child.path, 'shared.txt'), 'utf8')).toBe('parent edit\n')
    writeFileSync(join(child.path, 'child.txt'), 'child\n')
    commitWorktree(child, 'child', 'nested')
    expect(mergeWorktree(child)).toMatchObject({ ok: true, files: ['child.txt'] })
    expect(readFileSync(join(parent.path, 'child.txt'), 'utf8')).toBe('child\n')
    expect(existsSync(join(dir, 'child.txt'))).toBe(false)
  })
})
