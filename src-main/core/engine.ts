import { statSync } from 'node:fs'
import path from 'node:path'
import { loadProfiles, type LoadedProfiles } from './agent/profiles/load'
import type { ApiHandlers, ApiNotification, ProjectInfo } from './api/contract'
import { ApiFailure, notFound } from './api/errors'
import { demoJob, scriptedJob } from './demo/demo-job'
import { openDatabase } from './store/database'
import { exportJobJsonl } from './store/export'
import { endInterruptedJobs } from './store/interrupted'
import { getAgent, getAgents, getEvents, getJob, lastSeq, listJobs } from './store/queries'
import { TraceWriter } from './store/trace-writer'
import type { ProcessHost } from './supervisor/process-host'
import { Supervisor } from './supervisor/supervisor'
import type { JobSettings } from './trace/model'

export interface EngineOptions {
  dbFile: string
  processHost: ProcessHost
  projectDir?: string
  /** Path of a better_sqlite3.node built for Electron's ABI (the app); Node's build otherwise. */
  nativeBinding?: string
  /** Time between asking an agent to end and forcing it. */
  killGraceMs?: number
}

export interface Engine {
  handlers: ApiHandlers
  supervisor: Supervisor
  subscribe(listener: (notification: ApiNotification) => void): () => void
  openProject(dir: string): ProjectInfo
  /** The profiles a job in `projectDir` may use: the built-ins plus the project's own, with load errors. */
  profilesFor(projectDir: string): LoadedProfiles
  /** Resolves when the job's `job.end` is stored. */
  waitForJob(jobId: string): Promise<void>
  /** Streams a job's trace JSONL (the `serve` download route, `arbor demo --export`). */
  exportJsonl(jobId: string, out: NodeJS.WritableStream | string): Promise<number>
  close(): Promise<void>
}

export const defaultSettings = (overrides: Partial<JobSettings> = {}): JobSettings => ({
  provider: 'scripted',
  model: 'scripted',
  light_model: null,
  profile: 'general',
  max_depth: 1,
  max_concurrent_children: 3,
  job_token_budget: null,
  job_cost_budget: null,
  ...overrides,
})

/** The engine behind every UI and the CLI: store, trace writer, supervisor and the API handlers. */
export function createEngine(options: EngineOptions): Engine {
  const db = openDatabase(options.dbFile, { nativeBinding: options.nativeBinding })
  const writer = new TraceWriter(db)
  endInterruptedJobs(db, writer)
  const supervisor = new Supervisor({ sink: writer, host: options.processHost, killGraceMs: options.killGraceMs })
  const listeners = new Set<(notification: ApiNotification) => void>()
  writer.onCommit((events) => {
    for (const listener of listeners) listener({ kind: 'events', events })
  })
  let project: ProjectInfo | null = null

  const openProject = (dir: string): ProjectInfo => {
    const resolved = path.resolve(dir)
    if (!statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
      throw new ApiFailure('invalid_request', `not a folder: ${resolved}`)
    }
    project = { path: resolved, name: path.basename(resolved) }
    return project
  }
  if (options.projectDir) openProject(options.projectDir)

  const profilesFor = (projectDir: string): LoadedProfiles => loadProfiles(projectDir)

  const requireProject = (): ProjectInfo => {
    if (!project) throw new ApiFailure('conflict', 'open a project folder first')
    return project
  }
  const requireJob = (jobId: string) => getJob(db, jobId) ?? (() => { throw notFound(`job ${jobId}`) })()

  const handlers: ApiHandlers = {
    getState: async () => ({ project, all_paused: supervisor.spawningPausedForAll }),
    openProject: async ({ path: dir }) => ({ project: openProject(dir) }),
    listJobs: async () => ({ jobs: listJobs(db, project?.path) }),
    startJob: async (input) => {
      const { path: projectDir } = requireProject()
      const planned = input.kind === 'demo' ? await demoJob(projectDir) : await scriptedJob(projectDir, input.task?.trim() || 'Explore this project')
      const settings = defaultSettings({
        max_depth: input.max_depth ?? 1,
        max_concurrent_children: input.max_concurrent_children ?? 3,
        script: planned.script,
      })
      const jobId = supervisor.startJob({
        project: projectDir,
        task: planned.task,
        settings,
        loadedProfiles: profilesFor(projectDir),
        autoApprove: input.auto_approve,
        spawnPaused: input.spawn_paused,
      })
      writer.flush()
      return { job_id: jobId }
    },
    getTree: async ({ job_id }) => {
      writer.flush()
      // Synchronous from flush to the last read, so no batch commits in between.
      return {
        job: requireJob(job_id),
        agents: getAgents(db, job_id),
        last_seq: lastSeq(db, job_id),
        approvals: supervisor.pendingApprovals(job_id).map((approval) => ({ ...approval, job_id })),
      }
    },
    getEvents: async ({ agent_id, after_seq, limit }) => {
      writer.flush()
      return { events: getEvents(db, agent_id, after_seq, limit) }
    },
    setSpawnPaused: async ({ job_id, paused }) => {
      if (job_id !== null) requireJob(job_id)
      supervisor.setSpawnPaused(job_id, paused)
      return { paused }
    },
    killAgent: async ({ agent_id }) => {
      if (!getAgent(db, agent_id)) throw notFound(`agent ${agent_id}`)
      return { killed: supervisor.kill(agent_id) }
    },
    cancelSpawn: async ({ agent_id }) => ({ cancelled: supervisor.cancelSpawn(agent_id) }),
    setAutoApprove: async ({ job_id, value }) => {
      requireJob(job_id)
      supervisor.setAutoApprove(job_id, value)
      return { value }
    },
    decideApproval: async ({ approval_id, decision }) => {
      if (!supervisor.decideApproval(approval_id, decision)) throw notFound(`pending approval ${approval_id}`)
      return { decided: true }
    },
    exportJob: async ({ job_id, path: target }) => {
      requireJob(job_id)
      writer.flush()
      // The Electron shell fills in the path from a save dialog; browsers download /export/<job>.jsonl.
      if (!target) throw new ApiFailure('invalid_request', 'exportJob needs a path')
      const lines = await exportJobJsonl(db, job_id, target)
      return { path: target, lines }
    },
  }

  const waitForJob = (jobId: string): Promise<void> =>
    new Promise((resolve) => {
      const done = (): boolean => {
        writer.flush()
        return getJob(db, jobId)?.status !== 'running'
      }
      if (done()) return resolve()
      const stop = supervisor.onJobEnd((ended) => {
        if (ended !== jobId) return
        stop()
        writer.flush()
        resolve()
      })
    })

  return {
    handlers,
    supervisor,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    openProject,
    profilesFor,
    waitForJob,
    exportJsonl: (jobId, out) => {
      requireJob(jobId)
      writer.flush()
      return exportJobJsonl(db, jobId, out)
    },
    async close() {
      await supervisor.shutdown()
      writer.close()
      db.close()
    },
  }
}
