import path from 'node:path'
import { getChanges, getFileDiff, scopeAgents } from '../../core/store/changes'
import { openDatabase } from '../../core/store/database'
import { getAgents } from '../../core/store/queries'
import { jobWorktrees } from '../../core/handlers/worktree-handlers'
import type { ChangeScope } from '../../core/trace/change-views'
import { agentOf, jobOf } from '../agent-reference'
import { branchLine, changedFileLine, changesSummary, unifiedDiff } from '../changes-printer'
import type { CliValues } from '../cli-values'
import { defaultDbFile } from '../paths'
import { UsageError } from '../usage-error'

/** `arbor changes JOB [--agent ID] [--subtree] [--diff]`: the Changes tab, on the terminal. */
export function runChanges(reference: string | undefined, values: CliValues): number {
  if (!reference) throw new UsageError('changes needs a job: arbor changes JOB (an id, a part of it, or last)')
  if (values.subtree && !values.agent) throw new UsageError('--subtree goes with --agent ID')
  const db = openDatabase(path.resolve(values.db ?? defaultDbFile()))
  try {
    const jobId = jobOf(db, reference)
    const scope: ChangeScope = {
      job_id: jobId,
      ...(values.agent ? { agent_id: agentOf(db, jobId, values.agent) } : {}),
      subtree: values.subtree ?? false,
    }
    const { files, more } = getChanges(db, scope)
    const whose = scope.agent_id ? `agent ${scope.agent_id}${scope.subtree ? ' and its subtree' : ''}` : 'the whole job'
    console.log(`job ${jobId}, ${whose}: ${changesSummary(files, more)}`)
    for (const file of files) {
      console.log(changedFileLine(file))
      const diff = values.diff ? getFileDiff(db, scope, file.path, file.branch) : undefined
      if (diff) console.log(`${unifiedDiff(diff)}\n`)
    }
    const agents = getAgents(db, jobId)
    const held = scopeAgents(agents, scope)
    const labels = new Map(agents.map((agent) => [agent.id, agent.label]))
    const branches = jobWorktrees(db, jobId).filter((view) => held.has(view.agent_id))
    if (branches.length > 0) console.log(`\nworktree branches:`)
    for (const view of branches) console.log(branchLine(view, labels.get(view.agent_id) ?? view.agent_id))
    return 0
  } finally {
    db.close()
  }
}
