import type { LoadedProfiles } from '../job/profiles/load'
import type { ProjectInfo } from '../api/contract'
import { ApiFailure, notFound } from '../api/errors'
import type { Environment } from '../providers/connection'
import type { KeyStore } from '../settings/key-store'
import type { ProviderSources } from '../settings/providers'
import type { AppSettings } from '../store/app-settings'
import type { SqliteDatabase } from '../store/database'
import { jobOwnersFor } from '../store/job-owners'
import { getJob } from '../store/queries'
import type { TraceLog } from '../store/trace-writer'
import type { Supervisor } from '../supervisor/supervisor'
import type { Job } from '../trace/model'

/** What every group of API handlers works with: one engine's store, supervisor and settings. */
export interface EngineContext {
  db: SqliteDatabase
  writer: TraceLog
  supervisor: Supervisor
  settings: AppSettings
  keys: KeyStore
  env: Environment
  /** The open project, if any. */
  project: ProjectInfo | null
  profilesFor(projectDir: string): LoadedProfiles
  /** What a sandboxed command of the project must not read (Arbor's own data); none when absent. */
  protectedPathsFor?(projectDir: string): string[]
}

export const providerSources = (context: EngineContext): ProviderSources => ({
  settings: context.settings,
  keys: context.keys,
  env: context.env,
})

export function requireProject(context: EngineContext): ProjectInfo {
  if (!context.project) throw new ApiFailure('conflict', 'open a project folder first')
  return context.project
}

export function requireJob(context: EngineContext, jobId: string): Job {
  const job = getJob(context.db, jobId)
  if (!job) throw notFound(`job ${jobId}`)
  return job
}

/** A job the user may steer: imported traces are read-only. */
export function requireLiveJob(context: EngineContext, jobId: string): Job {
  const job = requireJob(context, jobId)
  if (job.imported) throw new ApiFailure('conflict', `job ${jobId} was imported from a trace file and is read-only`)
  return job
}

/**
 * A job this process may steer: not imported (read-only), and not running in another Arbor
 * process on the same database. Only the process that runs a job reaches its agents; a control
 * sent from here would only write into the other process's trace. Its owner is the writer's
 * (store/owner.ts); a job that ended may still have its settings recorded from anywhere.
 */
export function requireControllableJob(context: EngineContext, jobId: string): Job {
  const job = requireLiveJob(context, jobId)
  if (job.status !== 'running') return job
  const owner = jobOwnersFor(context.db).ownerOf(jobId)
  if (owner?.token != null && owner.token === context.writer.owner?.token) return job
  const where = owner?.pid != null ? ` (pid ${owner.pid}${owner.host ? ` on ${owner.host}` : ''})` : ''
  throw new ApiFailure('conflict', `job ${jobId} is running in another Arbor process${where}; control it from there`)
}
