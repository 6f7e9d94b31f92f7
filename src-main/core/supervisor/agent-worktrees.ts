import type { MergeResult } from '../protocol/messages'
import type { Envelope, EventData } from '../trace/events'
import { commitWorktree, createWorktree, mergeWorktree, removeWorktree, type Worktree } from '../worktrees/worktrees'
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
    return createWorktree({ parentDir: projectDirOf(parent), jobId: parent.job.id, agentId: childId, label })
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
    return mergeRecorded(worktree, by, (data) => this.trace.agent(child, 'worktree', data))
  }
}

export type WorktreeEventData = EventData<'worktree'>

/**
 * A merge and what it records, for the parent's call (above) and the user's (handlers): on success
 * the branch's worktree is removed when clean (the branch is kept); on a conflict nothing is applied.
 */
export function mergeRecorded(worktree: Worktree, by: 'parent' | 'user', record: (data: WorktreeEventData) => void): MergeResult {
  let outcome
  try {
    outcome = mergeWorktree(worktree)
  } catch (error) {
    return { error: (error as Error).message }
  }
  const place = { branch: worktree.branch, path: worktree.path }
  if (!outcome.ok) {
    record({ action: 'conflict', ...place, conflicts: outcome.conflicts.map((conflict) => ({ ...conflict })), by })
    return { ok: false, branch: worktree.branch, conflicts: outcome.conflicts }
  }
  record({ action: 'merged', ...place, files: outcome.files, by })
  try {
    if (removeWorktree(worktree, false)) record({ action: 'removed', ...place })
  } catch {
    // Not clean: kept, as a worktree with uncommitted work always is.
  }
  return { ok: true, branch: worktree.branch, files: outcome.files }
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
})

/** The folder an agent works in: its own worktree, else its parent's folder (a nested child of an isolated one works in that worktree), else the job's project. */
export function projectDirOf(agent: AgentRuntime): string {
  if (agent.worktree) return agent.worktree.project_dir
  return agent.parent ? projectDirOf(agent.parent) : agent.job.project
}
