import path from 'node:path'
import { getChanges, getFileDiff } from '../../core/store/changes'
import { openDatabase } from '../../core/store/database'
import { resolveJobReference } from '../../core/store/job-reference'
import { getAgents, listJobs } from '../../core/store/queries'
import type { ChangeScope } from '../../core/trace/change-views'
import { changedFileLine, changesSummary, unifiedDiff } from '../changes-printer'
import type { CliValues } from '../cli-values'
import { defaultDbFile } from '../paths'
import { UsageError } from '../usage-error'

/** `arbor changes JOB [--agent ID] [--subtree] [--diff]`: the Changes tab, on the terminal. */
export function runChanges(reference: string | undefined, values: CliValues): number {
  if (!reference) throw new UsageError('changes needs a job: arbor changes JOB (an id, a part of it, or last)')
  if (values.subtree && !values.agent) throw new UsageError('--subtree goes with --agent ID')
  const db = openDatabase(path.resolve(values.db ?? defaultDbFile()))
  try {
    const jobId = reference === 'last' ? listJobs(db)[0]?.id : resolveJobReference(db, reference)
    if (!jobId) throw new Error('the database holds no jobs')
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
      const diff = values.diff ? getFileDiff(db, scope, file.path) : undefined
      if (diff) console.log(`${unifiedDiff(diff)}\n`)
    }
    return 0
  } finally {
    db.close()
  }
}

/** The agent a user names: its id, a unique label, or a unique start of its id. */
function agentOf(db: ReturnType<typeof openDatabase>, jobId: string, reference: string): string {
  const agents = getAgents(db, jobId)
  const exact = agents.find((agent) => agent.id === reference)
  if (exact) return exact.id
  for (const matches of [agents.filter((agent) => agent.label === reference), agents.filter((agent) => agent.id.startsWith(reference))]) {
    if (matches.length === 1) return matches[0]!.id
    if (matches.length > 1)
      throw new UsageError(`--agent ${reference} names ${matches.length} agents: ${matches.map((agent) => agent.id).join(', ')}`)
  }
  throw new UsageError(`job ${jobId} has no agent ${reference}`)
}
