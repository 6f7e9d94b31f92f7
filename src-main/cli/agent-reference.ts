import type { SqliteDatabase } from '../core/store/database'
import { resolveJobReference } from '../core/store/job-reference'
import { getAgents, listJobs } from '../core/store/queries'
import { UsageError } from './usage-error'

/** The job a command names: `last` (the database's newest job), its id, or a unique part of it. */
export function jobOf(db: SqliteDatabase, reference: string): string {
  if (reference === 'last') {
    const newest = listJobs(db)[0]?.id
    if (!newest) throw new Error('the database holds no jobs')
    return newest
  }
  return resolveJobReference(db, reference)
}

/** The agent a user names: its id, a unique label, or a unique start of its id. */
export function agentOf(db: SqliteDatabase, jobId: string, reference: string): string {
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
