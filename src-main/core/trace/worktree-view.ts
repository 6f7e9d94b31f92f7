import type { EventData } from './events'

/** A worktree child as its node shows it: its branch, its last step, whether the worktree is still there, the files of its commit. */
export interface WorktreeView {
  agent_id: string
  branch: string
  state: 'created' | 'committed' | 'merged' | 'conflict' | 'discarded'
  present: boolean
  files: string[]
}

/** One `worktree` event applied to a child's view: `removed` and `discarded` take the worktree away, the rest set the state. */
export function foldWorktree(view: WorktreeView | undefined, agentId: string, data: EventData<'worktree'>): WorktreeView {
  const base: WorktreeView = view ?? { agent_id: agentId, branch: data.branch, state: 'created', present: true, files: [] }
  if (data.action === 'removed') return { ...base, present: false }
  if (data.action === 'discarded') return { ...base, state: 'discarded', present: false }
  return { ...base, state: data.action, files: data.action === 'committed' ? (data.files ?? []) : base.files }
}
