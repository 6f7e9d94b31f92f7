import type { ApiHandlers } from '../api/contract'
import { foldWorktree, type WorktreeView } from '../trace/worktree-view'
import type { SqliteDatabase } from '../store/database'
import { conflict, notFound } from '../api/errors'
import { getAgent } from '../store/queries'
import { discardRecorded, mergeRecorded, type MergeRecorder } from '../supervisor/agent-worktrees'
import { newEvent, type EventData } from '../trace/events'
import type { AgentNode } from '../trace/model'
import { commitWorktree, isClean, listWorktrees, type Worktree } from '../worktrees/worktrees'
import { requireControllableJob, requireProject, type EngineContext } from './context'

type WorktreeHandlers = Pick<ApiHandlers, 'mergeBranch' | 'discardBranch' | 'listWorktrees'>

/**
 * The user's Merge and Discard on a worktree child's node, and the list of Arbor's worktrees in
 * a project (those an interrupted job left are listed, never deleted). A worktree is known from
 * its child's `worktree` created event, so a job that ended long ago (or in another process) can
 * still be merged; its agent must not be running in this process. What each does is recorded as
 * a `worktree` event on the child.
 */
export function worktreeHandlers(context: EngineContext): WorktreeHandlers {
  const { db, writer, supervisor } = context

  /** The child's node and worktree, once its agent no longer uses it; an interrupted child's work is committed first. */
  const endedWorktree = (agentId: string): { agent: AgentNode; worktree: Worktree; record: MergeRecorder } => {
    const agent = getAgent(db, agentId)
    if (!agent) throw notFound(`agent ${agentId}`)
    // A job another Arbor process runs is its to merge: its agents may still be using the worktree.
    requireControllableJob(context, agent.job_id)
    const worktree = createdWorktree(context, agentId)
    if (!worktree) throw conflict(`agent ${agent.label} did not run in a worktree`)
    if (supervisor.isAgentRunning(agentId)) throw conflict(`agent ${agent.label} is still running in its worktree: wait until it ends`)
    const place = () => ({
      ts: new Date().toISOString(),
      job_id: agent.job_id,
      agent_id: agent.id,
      parent_id: agent.parent_id,
      depth: agent.depth,
    })
    const record: MergeRecorder = {
      worktree: (data) => writer.append(newEvent('worktree', place(), data)),
      change: (data, contents) => writer.append(newEvent('file.change', place(), data), contents),
    }
    // An interrupted job's child never committed: what it left is committed now, so the branch has it.
    if (!isClean(worktree.path)) {
      const { commit, files } = commitWorktree(worktree, agent.label, agent.label)
      record.worktree({ action: 'committed', branch: worktree.branch, path: worktree.path, files, commit })
    }
    return { agent, worktree, record }
  }

  return {
    mergeBranch: async ({ agent_id }) => {
      const { worktree, record } = endedWorktree(agent_id)
      const outcome = mergeRecorded(worktree, 'user', record)
      writer.flush()
      if ('error' in outcome) throw conflict(outcome.error)
      return outcome.ok
        ? { merged: true, branch: outcome.branch, files: outcome.files }
        : { merged: false, branch: outcome.branch, conflicts: outcome.conflicts }
    },
    discardBranch: async ({ agent_id }) => {
      const { worktree, record } = endedWorktree(agent_id)
      const removed = discardRecorded(worktree, record.worktree)
      writer.flush()
      return { branch: worktree.branch, removed }
    },
    listWorktrees: async ({ project }) => {
      const dir = project ?? requireProject(context).path
      writer.flush()
      const byBranch = new Map<string, { agent_id: string; job_id: string }>()
      const rows = db
        .prepare(`SELECT agent_id, job_id, data FROM events WHERE type = 'worktree' AND json_extract(data, '$.action') = 'created'`)
        .all() as { agent_id: string; job_id: string; data: string }[]
      for (const row of rows) byBranch.set((JSON.parse(row.data) as { branch: string }).branch, row)
      const worktrees = listWorktrees(dir).map((listed) => {
        const owner = byBranch.get(listed.branch)
        return {
          path: listed.path,
          branch: listed.branch,
          agent_id: owner?.agent_id ?? null,
          job_id: owner?.job_id ?? null,
          left: !owner || !supervisor.isAgentRunning(owner.agent_id),
        }
      })
      return { worktrees }
    },
  }
}

/** The worktree an agent's `worktree` created event recorded, or null (it ran without one). */
export function createdWorktree(context: EngineContext, agentId: string): Worktree | null {
  context.writer.flush()
  const row = context.db
    .prepare(
      `SELECT data FROM events WHERE agent_id = ? AND type = 'worktree' AND json_extract(data, '$.action') = 'created' ORDER BY seq LIMIT 1`,
    )
    .get(agentId) as { data: string } | undefined
  if (!row) return null
  const data = JSON.parse(row.data) as EventData<'worktree'>
  if (!data.base || !data.parent_dir || !data.project_dir) return null
  return {
    path: data.path,
    branch: data.branch,
    base: data.base,
    parent_dir: data.parent_dir,
    project_dir: data.project_dir,
    ...(data.parent_branch ? { parent_branch: data.parent_branch } : {}),
  }
}

/** A job's worktree children, folded from their `worktree` events in order (getTree's `worktrees`). */
export function jobWorktrees(db: SqliteDatabase, jobId: string): WorktreeView[] {
  const rows = db.prepare(`SELECT agent_id, data FROM events WHERE job_id = ? AND type = 'worktree' ORDER BY seq`).all(jobId) as {
    agent_id: string
    data: string
  }[]
  const views = new Map<string, WorktreeView>()
  for (const row of rows)
    views.set(row.agent_id, foldWorktree(views.get(row.agent_id), row.agent_id, JSON.parse(row.data) as EventData<'worktree'>))
  return [...views.values()]
}
