import { existsSync, mkdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { arborIdentity, changedFiles, commonDir, git, headCommit, snapshotCommit, workTreeRoot } from './git'

/**
 * Worktree isolation (issue 22 §2): a child agent's own git worktree on its own branch, made from
 * its parent's current state, committed when it ends, and merged into (or discarded from) its
 * parent's tree. Every git command runs on the supervisor's side, never in a sandbox.
 *
 * Where worktrees live: `<the repository's .git>/arbor/worktrees/<job>/<label>-<short id>`.
 * - Not in Arbor's data folder: the sandbox hides that folder from every command, so a child's
 *   bash would see its own worktree empty.
 * - Not in the parent's working tree: the parent's `git status`, list_files and search would see
 *   the child's files, and `git add -A` of a snapshot would take them in.
 * - Inside `.git`, which is under the parent's project folder: the child's sandbox binds only its
 *   worktree writable, so everything else (the parent's tree, the repository's objects and refs)
 *   is read-only to the child, and the worktree goes wherever the repository goes.
 * - Not in the system's temp folder, which a reboot empties: a worktree left by an interrupted
 *   job is still there to be listed, merged or discarded.
 */

/** One child's worktree: where it is, its branch, and the commit it was made from (the fork point). */
export interface Worktree {
  /** The worktree's top folder (the repository's top, checked out). */
  path: string
  /** The child's project folder: the worktree, or the same subfolder of it the parent's project is of its repository. */
  project_dir: string
  branch: string
  /** The fork point: the parent's state when the child started, uncommitted changes included. */
  base: string
  /** The parent's project folder, which a merge applies to. */
  parent_dir: string
  /** The worktree the parent works in, when it is an isolated agent (or under one) itself. */
  parent_branch?: string
}

export class WorktreeRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorktreeRefused'
  }
}

/** A git branch name part from a task's description: lowercase words joined by "-", at most 40 characters. */
export function slug(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return words.slice(0, 40).replace(/-+$/, '') || 'task'
}

export const branchName = (jobId: string, label: string, agentId: string): string =>
  `arbor/${slug(jobId)}/${slug(label)}-${agentId
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(-6)
    .toLowerCase()}`

/**
 * Makes the child's worktree from `parentDir` as it is now (a parent that is itself in a
 * worktree forks from its own). Throws a WorktreeRefused saying why when `parentDir` is not in
 * a git repository.
 */
export function createWorktree(options: {
  parentDir: string
  parentBranch?: string
  jobId: string
  agentId: string
  label: string
}): Worktree {
  const root = workTreeRoot(options.parentDir)
  if (root === null) {
    throw new WorktreeRefused(
      `isolation "worktree" needs a git repository, and ${options.parentDir} is not in one (run git init there first)`,
    )
  }
  const branch = branchName(options.jobId, options.label, options.agentId)
  const head = headCommit(root)
  const base = snapshotCommit(root, head ? [head] : [], `arbor: the parent's state for ${branch}`, arborIdentity(options.label))
  const folder = join(commonDir(root), 'arbor', 'worktrees', slug(options.jobId))
  mkdirSync(folder, { recursive: true })
  const path = join(folder, branch.split('/').pop()!)
  git(root, ['worktree', 'add', '--quiet', '-b', branch, path, base])
  return {
    path,
    project_dir: join(path, relative(root, options.parentDir)),
    branch,
    base,
    parent_dir: options.parentDir,
    ...(options.parentBranch ? { parent_branch: options.parentBranch } : {}),
  }
}

/**
 * Commits everything the child left in its worktree on its branch (author "Arbor agent <label>",
 * message its task's description); nothing when it changed nothing. Returns the files that
 * differ from the fork point, relative to the repository's top, and the branch's commit.
 */
export function commitWorktree(worktree: Worktree, label: string, message: string): { commit: string; files: string[] } {
  const { path } = worktree
  const identity = arborIdentity(label)
  git(path, ['add', '-A', '--', '.'])
  if (hasStaged(path)) git(path, ['commit', '--quiet', '--no-verify', '-m', message], { env: identity })
  const commit = headCommit(path)!
  return { commit, files: changedFiles(path, worktree.base, commit) }
}

function hasStaged(path: string): boolean {
  const headExists = headCommit(path) !== null
  if (!headExists) return git(path, ['ls-files']).trim() !== ''
  return git(path, ['diff', '--cached', '--name-only']).trim() !== ''
}

/** One conflicting file of a merge, with the conflicting hunks as git marks them (none when the conflict is not in the text, e.g. a deletion). */
export interface MergeConflict {
  path: string
  hunks: string[]
}

/**
 * A merge's outcome. Merged: the files it changed (relative to the repository top), and
 * `parent_state`, a commit of the parent's folder just before, which holds each file's content
 * before the merge (the folder holds its content after).
 */
export type MergeOutcome = { ok: true; files: string[]; root: string; parent_state: string } | { ok: false; conflicts: MergeConflict[] }

/**
 * Applies the child's branch to its parent's working tree (not a commit: the parent's index and
 * HEAD are untouched): a three-way merge of the parent's state now and the branch over the fork
 * point, made in git's object store (`merge-tree --write-tree`), then written to the parent's
 * tree as one patch. On a conflict nothing is written and each conflicting file is listed with
 * its hunks. `git apply` is all or nothing, so a parent that changed a file meanwhile gets a
 * refusal, not half a merge.
 */
export function mergeWorktree(worktree: Pick<Worktree, 'branch' | 'base' | 'parent_dir'>): MergeOutcome {
  const root = workTreeRoot(worktree.parent_dir)
  if (root === null) throw new WorktreeRefused(`${worktree.parent_dir} is no longer in a git repository`)
  // The parent's state now, as a child of the fork point: the merge base is then the fork point.
  const parentState = snapshotCommit(
    root,
    [worktree.base],
    `arbor: the parent's state before merging ${worktree.branch}`,
    arborIdentity('merge'),
  )
  const out = git(root, ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', parentState, worktree.branch], {
    okStatus: [1],
  })
  const [tree = '', ...rest] = out.split('\0')
  const conflicted = [...new Set(rest.filter((path) => path !== ''))]
  if (conflicted.length > 0) {
    return { ok: false, conflicts: conflicted.map((path) => ({ path, hunks: conflictHunks(root, tree, path, parentState) })) }
  }
  const files = changedFiles(root, parentState, tree)
  const merged = { ok: true as const, files, root, parent_state: parentState }
  if (files.length === 0) return merged
  const patch = git(root, ['diff', '--binary', '--no-renames', parentState, tree])
  try {
    git(root, ['apply', '--whitespace=nowarn', '-'], { input: patch })
  } catch (error) {
    const conflicts = files.map((path) => ({ path, hunks: [] }))
    if (conflicts.length > 0) return { ok: false, conflicts }
    throw error
  }
  return merged
}

/**
 * The `<<<<<<< … >>>>>>>` sections git wrote into a conflicted file of the merged tree; the
 * parent's side, which git names by the snapshot commit's id, is named "parent's folder".
 */
function conflictHunks(root: string, tree: string, path: string, parentState: string): string[] {
  let text: string
  try {
    text = git(root, ['cat-file', 'blob', `${tree}:${path}`])
  } catch {
    return []
  }
  const hunks: string[] = []
  let current: string[] | null = null
  for (const line of text.split('\n')) {
    if (line.startsWith('<<<<<<< ')) current = []
    if (current) current.push(line.startsWith(`<<<<<<< ${parentState}`) ? `<<<<<<< parent's folder` : line)
    if (current && line.startsWith('>>>>>>> ')) {
      hunks.push(current.join('\n'))
      current = null
    }
  }
  return hunks
}

/** Whether the worktree has nothing uncommitted (a missing one counts as clean). */
export function isClean(path: string): boolean {
  if (!existsSync(path)) return true
  return git(path, ['status', '--porcelain', '--untracked-files=all']).trim() === ''
}

/**
 * Removes a worktree; its branch is kept. Without `force` only a clean one (after a merge); with
 * it (a discard) whatever it holds. Returns false when it was gone already.
 */
export function removeWorktree(worktree: Pick<Worktree, 'path' | 'parent_dir'>, force: boolean): boolean {
  const root = workTreeRoot(worktree.parent_dir)
  if (!existsSync(worktree.path)) {
    if (root) git(root, ['worktree', 'prune'])
    return false
  }
  if (!force && !isClean(worktree.path)) throw new WorktreeRefused(`the worktree ${worktree.path} has uncommitted changes: it is kept`)
  git(root ?? worktree.path, ['worktree', 'remove', ...(force ? ['--force'] : []), worktree.path])
  return true
}

/** A worktree of Arbor's in a repository (its branch is `arbor/…`), as git lists it. */
export interface ListedWorktree {
  path: string
  branch: string
  head: string | null
}

/** Arbor's worktrees of the repository holding `dir` (none outside a repository). */
export function listWorktrees(dir: string): ListedWorktree[] {
  const root = workTreeRoot(dir)
  if (root === null) return []
  const listed: ListedWorktree[] = []
  for (const block of git(root, ['worktree', 'list', '--porcelain']).split('\n\n')) {
    const fields = new Map(block.split('\n').map((line) => [line.split(' ')[0]!, line.slice(line.indexOf(' ') + 1)]))
    const branch = fields.get('branch')?.replace(/^refs\/heads\//, '')
    const path = fields.get('worktree')
    if (path && branch?.startsWith('arbor/')) listed.push({ path, branch, head: fields.get('HEAD') ?? null })
  }
  return listed
}
