import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The few git commands worktree isolation runs, all synchronous and all from the supervisor's
 * side (never inside an agent's sandbox). Hooks never run: `core.hooksPath` points nowhere, so
 * nothing an agent wrote into a repository runs here.
 */

/** A git command that failed: its stderr, for the message. */
export class GitError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly stdout: string,
  ) {
    super(message)
    this.name = 'GitError'
  }
}

export interface GitOptions {
  env?: Record<string, string>
  input?: string | Buffer
  /** Exit codes that are answers, not failures (merge-tree's 1: conflicts). */
  okStatus?: number[]
}

/** Runs `git -C cwd args…` and returns its stdout; throws a GitError otherwise. */
export function git(cwd: string, args: string[], options: GitOptions = {}): string {
  try {
    return execFileSync('git', ['-C', cwd, '-c', 'core.hooksPath=/dev/null', ...args], {
      encoding: 'utf8',
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...options.env },
      input: options.input,
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
  } catch (error) {
    const failure = error as { status?: number | null; stdout?: string; stderr?: string }
    if (failure.status !== undefined && failure.status !== null && options.okStatus?.includes(failure.status)) {
      return failure.stdout ?? ''
    }
    const stderr = (failure.stderr ?? '').trim()
    throw new GitError(`git ${args[0]} failed: ${stderr || String(error)}`, failure.status ?? null, failure.stdout ?? '')
  }
}

/** The repository's top folder holding `dir`, or null when `dir` is not in a git work tree. */
export function workTreeRoot(dir: string): string | null {
  try {
    return git(dir, ['rev-parse', '--show-toplevel']).trim()
  } catch {
    return null
  }
}

/** The repository's shared `.git` folder (the main one, from a linked worktree too), absolute. */
export function commonDir(root: string): string {
  return git(root, ['rev-parse', '--path-format=absolute', '--git-common-dir']).trim()
}

/** HEAD's commit, or null in a repository with no commit yet. */
export function headCommit(root: string): string | null {
  try {
    return git(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']).trim()
  } catch {
    return null
  }
}

export const arborIdentity = (label: string): Record<string, string> => ({
  GIT_AUTHOR_NAME: `Arbor agent ${label}`,
  GIT_AUTHOR_EMAIL: 'arbor@localhost',
  GIT_COMMITTER_NAME: `Arbor agent ${label}`,
  GIT_COMMITTER_EMAIL: 'arbor@localhost',
})

/**
 * A commit of the work tree at `root` as it is now, uncommitted changes included (tracked and
 * untracked, not ignored), with `parents`. Made with a temporary index, so the repository's own
 * index, HEAD and branches are untouched: the commit is reachable from nothing until a branch or
 * another commit names it.
 */
export function snapshotCommit(root: string, parents: string[], message: string, identity: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'arbor-index-'))
  try {
    const env = { GIT_INDEX_FILE: join(folder, 'index'), ...identity }
    const head = headCommit(root)
    // Starting from HEAD's tree lets `add -A` hash only what changed.
    if (head) git(root, ['read-tree', head], { env })
    git(root, ['add', '-A', '--', '.'], { env })
    const tree = git(root, ['write-tree'], { env }).trim()
    return git(root, ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-m', message], { env }).trim()
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** Paths that differ between two commits (or trees), relative to the repository's top. */
export function changedFiles(root: string, from: string, to: string): string[] {
  const out = git(root, ['diff', '--name-only', '-z', '--no-renames', from, to])
  return out.split('\0').filter((path) => path !== '')
}

/** A blob's bytes (`rev:path`) when it is at most `maxBytes`; its size alone when larger; null when the commit has no such file. */
export function blobAt(root: string, rev: string, maxBytes: number): { size: number; bytes: Buffer | null } | null {
  let size: number
  try {
    size = Number(git(root, ['cat-file', '-s', rev]).trim())
  } catch {
    return null
  }
  if (size > maxBytes) return { size, bytes: null }
  const bytes = execFileSync('git', ['-C', root, 'cat-file', 'blob', rev], {
    maxBuffer: maxBytes + 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return { size, bytes }
}
