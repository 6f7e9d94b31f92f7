import type { ApiHandlers } from '../api/contract'
import { notFound } from '../api/errors'
import { getChanges, getFileDiff } from '../store/changes'
import { getAgent } from '../store/queries'
import { requireJob, requireLiveJob, type EngineContext } from './context'
import { revertChanges } from './revert-changes'

type ChangesHandlers = Pick<ApiHandlers, 'getChanges' | 'getFileDiff' | 'revertChanges'>

/**
 * The Changes tab's API: a scope's changed files and one file's diff (store/changes.ts), and the
 * node menu's Revert changes (revert-changes.ts). An agent named must be of the job named.
 */
export function changesHandlers(context: EngineContext): ChangesHandlers {
  const { db, writer } = context
  const requireAgentOf = (jobId: string, agentId: string | undefined): void => {
    if (agentId === undefined) return
    if (getAgent(db, agentId)?.job_id !== jobId) throw notFound(`agent ${agentId} of job ${jobId}`)
  }
  return {
    getChanges: async ({ counts_only, ...scope }) => {
      requireJob(context, scope.job_id)
      requireAgentOf(scope.job_id, scope.agent_id)
      writer.flush()
      return getChanges(db, scope, counts_only ?? false)
    },
    getFileDiff: async ({ path, branch, ...scope }) => {
      requireJob(context, scope.job_id)
      requireAgentOf(scope.job_id, scope.agent_id)
      writer.flush()
      const diff = getFileDiff(db, scope, path, branch)
      if (!diff) throw notFound(`a change of ${path}${branch ? ` in worktree ${branch}` : ''} in this scope`)
      return diff
    },
    revertChanges: async ({ agent_id, subtree }) => {
      writer.flush()
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      const job = requireLiveJob(context, agent.job_id)
      return revertChanges(db, writer, job, agent, subtree ?? false)
    },
  }
}
