import { api } from './api-ref'
import type { Notice } from './types'

/**
 * When a project opens (at start, or from the start screen): the worktrees earlier jobs left in
 * its repository (interrupted, or ended and neither merged nor discarded) are named in a notice.
 * They are never deleted here; Merge or Discard on their nodes, or git, takes them away.
 */
export async function noticeLeftWorktrees(notify: (kind: Notice['kind'], text: string) => void): Promise<void> {
  let left: { branch: string }[]
  try {
    left = (await api().listWorktrees({})).worktrees.filter((worktree) => worktree.left)
  } catch {
    // Not a reason to bother the user: the project opened, and the nodes still offer Merge and Discard.
    return
  }
  if (left.length === 0) return
  const branches = left.map((worktree) => worktree.branch)
  const named = branches.length > 3 ? `${branches.slice(0, 3).join(', ')} and ${branches.length - 3} more` : branches.join(', ')
  const what = left.length === 1 ? '1 worktree an earlier job left is' : `${left.length} worktrees earlier jobs left are`
  notify('info', `${what} still here (${named}): merge or discard them from their nodes; nothing was deleted.`)
}
