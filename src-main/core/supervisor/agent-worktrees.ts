import type { MergeResult } from '../protocol/messages'
import type { Envelope, EventData } from '../trace/events'
import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import {
  fileChangeEvent,
  maxHashedBytes,
  tracePath,
  unreadVersion,
  versionOf,
  type FileChange,
  type FileVersion,
} from '../protocol/file-change'
import { blobAt } from '../worktrees/git'
import { commitWorktree, createWorktree, mergeWorktree, removeWorktree, type MergeOutcome, type Worktree } from '../worktrees/worktrees'
import type { AgentRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/**
 * The supervisor's side of worktree isolation (issue 22 §2): a child spawned with `isolation:
 * 'worktree'` (its `task` call's or its profile's) gets its own worktree when its spawn is
 * granted, forked from its parent's folder as it is at that moment; it works there (its
 * project_dir, and the only folder its sandbox lets it write); whatever it left is committed on
 * its branch when it ends, however it ends (completed, failed, stopped, cancelled), so its work
 * is kept and its worktree is clean; and its parent's `merge_branch` applies the branch to the
 * parent's folder. Every `worktree` event is recorded on the child. Git runs synchronously here:
 * on a 10,000-file repository (measured once on the 2-core CI box) a worktree takes about 770 ms
 * to make (most of it `git worktree add` checking the files out), a commit 140 ms, a merge 100 ms,
 * a removal 120 ms; the supervisor's event loop waits meanwhile (making it asynchronous is left to do).
 */
export class AgentWorktrees {
  constructor(private readonly trace: TraceEmitter) {}

  /** The child's worktree, made from its parent's folder now; throws a WorktreeRefused (not a repository). */
  create(parent: AgentRuntime, childId: string, label: string): Worktree {
    return createWorktree({
      parentDir: projectDirOf(parent),
      parentBranch: worktreeBranchOf(parent),
      jobId: parent.job.id,
      agentId: childId,
      label,
    })
  }

  /** Recorded once the child has a node (after its agent.start, or its subagent.held/queued). */
  created(child: AgentRuntime): void {
    const worktree = child.worktree
    if (!worktree) return
    this.trace.agent(child, 'worktree', { action: 'created', ...worktreeFields(worktree) })
  }

  /**
   * The child ended: its work is committed on its branch and the envelope names the branch and
   * the files changed. A commit that fails is recorded as an error; the worktree stays.
   */
  ended(agent: AgentRuntime): Pick<Envelope, 'branch' | 'changed_files'> {
    const worktree = agent.worktree
    if (!worktree) return {}
    try {
      const { commit, files } = commitWorktree(worktree, agent.label, agent.request?.description ?? agent.label)
      this.trace.agent(agent, 'worktree', { action: 'committed', branch: worktree.branch, path: worktree.path, files, commit })
      return { branch: worktree.branch, changed_files: files }
    } catch (error) {
      this.trace.agent(agent, 'error', {
        message: `the worktree's work was not committed: ${(error as Error).message}`,
        source: 'worktree',
      })
      return { branch: worktree.branch }
    }
  }

  /** The parent's `merge_branch` call: only its own children, once they ended. */
  mergeForParent(parent: AgentRuntime, agentId: string): MergeResult {
    const child = parent.children.find((each) => each.id === agentId)
    if (!child) return { error: `${agentId} is not a subagent of yours` }
    if (!child.worktree) return { error: `${child.label} did not run in a worktree (spawn it with isolation: 'worktree')` }
    if (!child.ended) return { error: `${child.label} is still running: merge its branch once its envelope came back` }
    return this.merge(child, 'parent')
  }

  /** Merges a child's branch into its parent's folder, recording `merged` (and `removed`) or `conflict`. */
  merge(child: AgentRuntime, by: 'parent' | 'user'): MergeResult {
    const worktree = child.worktree!
    return mergeRecorded(worktree, by, {
      worktree: (data) => this.trace.agent(child, 'worktree', data),
      change: (data, contents) => this.trace.agent(child, 'file.change', data, undefined, contents),
    })
  }
}

export type WorktreeEventData = EventData<'worktree'>

/** Where a merge records what it did: the child's `worktree` events, and a `file.change` per file it changed in the parent's folder. */
export interface MergeRecorder {
  worktree(data: WorktreeEventData): void
  change(data: EventData<'file.change'>, contents: Buffer[]): void
}

/**
 * A merge and what it records, for the parent's call (above) and the user's (handlers): on success
 * a `file.change` (tool `merge`, on the child whose work it brings) for each file it changed in
 * the parent's folder, so "who changed this file" names the child there too, and Revert can undo
 * the merge; then the branch's worktree is removed when clean (the branch is kept). On a conflict
 * nothing is applied.
 */
export function mergeRecorded(worktree: Worktree, by: 'parent' | 'user', record: MergeRecorder): MergeResult {
  let outcome
  try {
    outcome = mergeWorktree(worktree)
  } catch (error) {
    return { error: (error as Error).message }
  }
  const place = { branch: worktree.branch, path: worktree.path }
  if (!outcome.ok) {
    record.worktree({ action: 'conflict', ...place, conflicts: outcome.conflicts.map((conflict) => ({ ...conflict })), by })
    return { ok: false, branch: worktree.branch, conflicts: outcome.conflicts }
  }
  record.worktree({ action: 'merged', ...place, files: outcome.files, by })
  for (const file of outcome.files) {
    const change = mergedChange(worktree, outcome, file)
    if (!change) continue
    const { data, contents } = fileChangeEvent(change, null, 'merge')
    record.change(worktree.parent_branch ? { ...data, branch: worktree.parent_branch } : data, contents)
  }
  try {
    if (removeWorktree(worktree, false)) record.worktree({ action: 'removed', ...place })
  } catch {
    // Not clean: kept, as a worktree with uncommitted work always is.
  }
  return { ok: true, branch: worktree.branch, files: outcome.files }
}

/**
 * One file a merge changed, as the parent's folder saw it: before from the commit of its state
 * just before the merge, after from the folder now. Null for a file outside the parent's project
 * folder (a parent working in a subfolder of its repository), which its views do not show.
 */
function mergedChange(worktree: Worktree, outcome: Extract<MergeOutcome, { ok: true }>, file: string): FileChange | null {
  const path = relative(worktree.parent_dir, join(outcome.root, file))
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return null
  const blob = blobAt(outcome.root, `${outcome.parent_state}:${file}`, maxHashedBytes)
  const before = blob === null ? null : blob.bytes ? versionOf(blob.bytes) : unreadVersion(blob.size)
  const after = versionOnDisk(join(outcome.root, file))
  if (!before && !after) return null
  return { path: tracePath(path), kind: !before ? 'created' : !after ? 'deleted' : 'modified', before, after }
}

function versionOnDisk(file: string): FileVersion | null {
  let size: number
  try {
    const stat = statSync(file)
    if (!stat.isFile()) return null
    size = stat.size
  } catch {
    return null
  }
  return size > maxHashedBytes ? unreadVersion(size) : versionOf(readFileSync(file))
}

/** Discards a worktree (it goes, whatever it holds; its branch is kept), recording `discarded`. */
export function discardRecorded(worktree: Worktree, record: (data: WorktreeEventData) => void): boolean {
  const removed = removeWorktree(worktree, true)
  record({ action: 'discarded', branch: worktree.branch, path: worktree.path, by: 'user' })
  return removed
}

const worktreeFields = (worktree: Worktree) => ({
  branch: worktree.branch,
  path: worktree.path,
  base: worktree.base,
  parent_dir: worktree.parent_dir,
  project_dir: worktree.project_dir,
  ...(worktree.parent_branch ? { parent_branch: worktree.parent_branch } : {}),
})

/** The folder an agent works in: its own worktree, else its parent's folder (a nested child of an isolated one works in that worktree), else the job's project. */
export function projectDirOf(agent: AgentRuntime): string {
  if (agent.worktree) return agent.worktree.project_dir
  return agent.parent ? projectDirOf(agent.parent) : agent.job.project
}

/** The branch of the worktree an agent works in (its own, or the nearest isolated ancestor's); undefined: the job's project folder. */
export function worktreeBranchOf(agent: AgentRuntime): string | undefined {
  if (agent.worktree) return agent.worktree.branch
  return agent.parent ? worktreeBranchOf(agent.parent) : undefined
}
