import { isLiveStatus, type AgentStatus } from '@core/trace/statuses'

/** What an entry of a node's menu does (NodeMenu.tsx carries it out). */
export type NodeMenuAction =
  | 'inspect'
  | 'retryNow'
  | 'steer'
  | 'wrapUp'
  | 'kill'
  | 'restart'
  | 'editPrompt'
  | 'allowSpawn'
  | 'cancelSpawn'
  | 'followUp'
  | 'setBudget'
  | 'showChanges'
  | 'revertChanges'
  | 'mergeBranch'
  | 'discardBranch'

export interface NodeMenuEntry {
  action: NodeMenuAction
  label: string
  /** Ends agents: drawn in the danger colour. */
  danger?: boolean
}

/** What the menu reads of a node. */
export interface NodeMenuSubject {
  status: AgentStatus
  /** An imported job or a replay: the node can be looked at, not acted on. */
  readOnly: boolean
  /** A spawn held by a job limit (max_agents, max_spawns_per_turn): the user may allow it past the limit. */
  heldByLimit?: boolean
  /** Its process went silent past the threshold: it may be restarted in a new one. */
  unresponsive?: boolean
  /** It or an agent under it changed files: they can be shown, and once it ended reverted. */
  changedFiles?: boolean
  /** A worktree child's worktree: its state, and whether the worktree is still there. Absent: it ran in its parent's folder. */
  worktree?: { state: string; present: boolean }
}

const isRunning = isLiveStatus
const isGhost = (status: AgentStatus): boolean => status === 'held' || status === 'queued'
const isEnded = (status: AgentStatus): boolean => !isRunning(status) && !isGhost(status)

/**
 * The entries of a node's menu, in order, for its state: every node can be inspected; a running
 * agent can be steered, given a branch budget, wrapped up or killed (an unresponsive one restarted); a spawn that has not started can have its prompt
 * edited or be cancelled, and one held by a job limit allowed; an agent that ended can be followed up, its (or its subtree's)
 * file changes reverted, and a worktree child's branch merged or its worktree discarded. A new control is one more line
 * here and one case in NodeMenu.tsx.
 */
export function nodeMenuEntries({
  status,
  readOnly,
  heldByLimit = false,
  unresponsive = false,
  changedFiles = false,
  worktree,
}: NodeMenuSubject): NodeMenuEntry[] {
  const entries: NodeMenuEntry[] = [{ action: 'inspect', label: 'Inspect' }]
  if (changedFiles) entries.push({ action: 'showChanges', label: 'Show changes' })
  if (readOnly) return entries
  // Waiting for a rate limit: its model call can go at once.
  if (status === 'rate_limited') entries.push({ action: 'retryNow', label: 'Retry now' })
  if (isRunning(status)) {
    entries.push(
      { action: 'steer', label: 'Steer…' },
      { action: 'setBudget', label: 'Set branch budget…' },
      { action: 'wrapUp', label: 'Wrap up' },
      { action: 'kill', label: 'Kill', danger: true },
    )
    if (unresponsive) entries.push({ action: 'restart', label: 'Restart', danger: true })
  }
  if (isGhost(status)) {
    if (status === 'held' && heldByLimit) entries.push({ action: 'allowSpawn', label: 'Allow spawn' })
    entries.push({ action: 'editPrompt', label: 'Edit prompt…' }, { action: 'cancelSpawn', label: 'Cancel spawn', danger: true })
  }
  if (isEnded(status)) entries.push({ action: 'followUp', label: 'Follow up…' })
  // A worktree child's changes are its branch's: Merge or Discard take the place of Revert, until
  // a merge made them the project's (Revert then undoes the merge).
  if (isEnded(status) && changedFiles && (!worktree || worktree.state === 'merged'))
    entries.push({ action: 'revertChanges', label: 'Revert changes…', danger: true })
  // A worktree child that ended: its branch can be merged into its parent's folder (again after a
  // conflict, or from the kept branch after a discard), and its worktree discarded while it is there.
  if (worktree && isEnded(status)) {
    if (worktree.state !== 'merged') entries.push({ action: 'mergeBranch', label: 'Merge' })
    if (worktree.present) entries.push({ action: 'discardBranch', label: 'Discard', danger: true })
  }
  return entries
}

/** The entry the arrow keys move to from `index` (wrapping), or Home / End; `index` itself for any other key. */
export function nextEntryIndex(index: number, count: number, key: string): number {
  if (count === 0) return index
  switch (key) {
    case 'ArrowDown':
      return (index + 1) % count
    case 'ArrowUp':
      return (index - 1 + count) % count
    case 'Home':
      return 0
    case 'End':
      return count - 1
    default:
      return index
  }
}
