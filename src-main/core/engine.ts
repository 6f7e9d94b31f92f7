import path from 'node:path'
import { codeCacheDir } from './protocol/code-cache'
import { readProjectInstructions } from './job/project-instructions'
import { loadProfiles, type LoadedProfiles } from './job/profiles/load'
import type { ApiHandlers, ApiNotification, ExportFormatName, ProjectInfo } from './api/contract'
import type { KeyedProviderId } from './api/job-form'
import type { EngineContext } from './handlers/context'
import { worktreeHandlers } from './handlers/worktree-handlers'
import { exportFormat, importTrace, jobHandlers } from './handlers/job-handlers'
import { openProjectIn, projectHandlers } from './handlers/project-handlers'
import { mcpHandlers } from './handlers/mcp-handlers'
import { withRedactedErrors } from './handlers/redacted-errors'
import { settingsHandlers } from './handlers/settings-handlers'
import { traceExportHandlers } from './handlers/trace-export-handlers'
import { timelineHandlers } from './handlers/timeline-handlers'
import { changesHandlers } from './handlers/changes-handlers'
import { AutoExport } from './otlp/auto-export'
import type { Environment } from './providers/connection'
import { FileKeyStore, type KeyStore } from './settings/key-store'
import { knownSecrets, knownSecretsRedactor } from './settings/known-secrets'
import { resolveConnectionFor } from './settings/providers'
import { AppSettings } from './store/app-settings'
import { openDatabase } from './store/database'
import { exportJob } from './store/export'
import { startHeartbeat } from './store/heartbeat'
import type { ImportResult } from './import/import-job'
import { endInterruptedJobs } from './store/interrupted'
import { newOwnerIdentity } from './store/owner'
import { getAgents, getEvents, getJob } from './store/queries'
import type { ResumeSource } from './supervisor/rehydrate'
import type { TraceEvent } from './trace/events'
import { TraceWriter, type TraceLog } from './store/trace-writer'
import { ThreadedTraceWriter } from './store/writer-thread'
import type { ProcessHost } from './supervisor/process-host'
import type { JobContext } from './supervisor/runtime'
import { Supervisor } from './supervisor/supervisor'
import { WarmPool } from './supervisor/warm-pool'
import type { JobSettings } from './trace/model'

export { defaultSettings } from './trace/model'

export interface EngineOptions {
  dbFile: string
  /** An agent process that has not said ready by then fails (30 s). */
  readyTimeoutMs?: number
  processHost: ProcessHost
  /** Agent processes started ahead of need, each used by one agent only (supervisor/warm-pool.ts); default 2, 0 turns it off. */
  warmPool?: number
  projectDir?: string
  /** Path of a better_sqlite3.node built for Electron's ABI (the app); Node's build otherwise. */
  nativeBinding?: string
  /**
   * The trace writer's thread entry (out/main/writer-worker.js; store/writer-worker.ts from
   * source): with it, the trace's commits run on a worker thread and never block this thread's
   * loop (the app's main process, `serve`). Without it they run on this thread.
   */
  writerWorker?: string
  /** Time between asking an agent to end and forcing it. */
  killGraceMs?: number
  /** Where keys entered in settings are kept; default `keys.json` (mode 0600, not encrypted) beside the database. */
  keys?: KeyStore
  /** Where keys and base URLs are also looked for; default the process environment. */
  env?: Environment
  /**
   * A user can allow spawns held by a job limit (Supervisor's userDecidesSpawns): true by default
   * (the app, `arbor serve`); `arbor run` says false, and such spawns are refused.
   */
  userDecidesSpawns?: boolean
  /** Agents' heartbeat interval and the silence after which one is unresponsive (SupervisorOptions.heartbeat; 5 s and 30 s). */
  heartbeat?: { intervalMs?: number; unresponsiveAfterMs?: number }
  /** How long an MCP tool call may take (SupervisorOptions.mcpCallTimeoutMs); short in tests. */
  mcpCallTimeoutMs?: number
  /** Model calls in flight at once per API endpoint, over the Settings value (`arbor run --max-model-calls`). */
  maxModelCalls?: number
  /** How often this process says it still runs its jobs, and when another's silence means it is gone (store/owner.ts). */
  liveness?: { heartbeatMs?: number; staleAfterMs?: number }
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
  /** Streams a job in either export format. */
  exportTrace(jobId: string, out: NodeJS.WritableStream | string, format: ExportFormatName): Promise<number>
  /** Imports a trace JSONL read-only (`arbor import`, `open`, uploads). Throws naming the bad line. */
  importTrace(file: string): ImportResult
  close(): Promise<void>
}

/** The engine behind every UI and the CLI: store, trace writer, supervisor, settings and the API handlers. */
export function createEngine(options: EngineOptions): Engine {
  const db = openDatabase(options.dbFile, { nativeBinding: options.nativeBinding })
  // This process owns the jobs it starts. Jobs whose process is gone end now; a job another
  // live Arbor process runs on this file is left to it.
  const owner = newOwnerIdentity()
  const writer: TraceLog = options.writerWorker
    ? new ThreadedTraceWriter(db, {
        dbFile: options.dbFile,
        workerEntry: options.writerWorker,
        nativeBinding: options.nativeBinding,
        owner,
      })
    : new TraceWriter(db, { owner })
  endInterruptedJobs(db, writer, { staleAfterMs: options.liveness?.staleAfterMs })
  const heartbeat = startHeartbeat(db, writer, { intervalMs: options.liveness?.heartbeatMs })
  const settings = new AppSettings(db)
  const keys = options.keys ?? new FileKeyStore(path.join(path.dirname(path.resolve(options.dbFile)), 'keys.json'))
  const env = options.env ?? process.env
  const jobContext = (project: string, jobSettings: JobSettings): JobContext => {
    let connection: JobContext['connection'] = null
    if (jobSettings.provider !== 'scripted') {
      const resolved = resolveConnectionFor(
        jobSettings.provider as KeyedProviderId,
        jobSettings.base_url,
        { settings, keys, env },
        { noKey: jobSettings.no_key === true },
      )
      // No key: the root's first model call fails with a message that says where to put one.
      if (!('error' in resolved)) connection = resolved
    }
    return {
      connection,
      prices: settings.prices(),
      instructions: readProjectInstructions(project),
      protectedPaths: arborDataPaths(options.dbFile, project),
      secrets: knownSecrets({ keys, env }),
    }
  }
  const pool = new WarmPool(options.processHost, options.warmPool ?? 2)
  const resumeSource: ResumeSource = {
    storedJob(jobId) {
      writer.flush()
      const job = getJob(db, jobId)
      return job && !job.imported ? { job, agents: getAgents(db, jobId) } : undefined
    },
    agentEvents(agentId) {
      writer.flush()
      const events: TraceEvent[] = []
      for (let page = getEvents(db, agentId, 0); page.length > 0; page = getEvents(db, agentId, page.at(-1)!.seq)) events.push(...page)
      return events
    },
  }
  const supervisor = new Supervisor({
    resumeSource,
    sink: writer,
    host: pool,
    killGraceMs: options.killGraceMs,
    readyTimeoutMs: options.readyTimeoutMs,
    jobContext,
    env,
    userDecidesSpawns: options.userDecidesSpawns,
    heartbeat: options.heartbeat,
    mcpCallTimeoutMs: options.mcpCallTimeoutMs,
    maxModelCalls: () => options.maxModelCalls ?? settings.maxModelCalls(),
  })
  const listeners = new Set<(notification: ApiNotification) => void>()
  writer.onCommit((events) => {
    for (const listener of listeners) listener({ kind: 'events', events })
  })
  const context: EngineContext = {
    db,
    writer,
    supervisor,
    settings,
    keys,
    env,
    project: null,
    profilesFor: (dir) => loadProfiles(dir),
    protectedPathsFor: (dir) => arborDataPaths(options.dbFile, dir),
  }
  if (options.projectDir) openProjectIn(context, options.projectDir)

  // Every job this process ran goes to the collector in settings when it ends (a failed send is only a notice).
  const autoExport = new AutoExport({ db, settings, keys, secrets: () => knownSecrets({ keys, env }), flush: () => writer.flush() })
  supervisor.onJobEnd((jobId) => autoExport.jobEnded(jobId))

  // No failure's message carries a known key to a renderer, a browser or a log.
  const handlers: ApiHandlers = withRedactedErrors(
    {
      ...projectHandlers(context),
      ...mcpHandlers(context),
      ...jobHandlers(context),
      ...timelineHandlers(context),
      ...changesHandlers(context),
      ...settingsHandlers(context),
      ...traceExportHandlers(context, autoExport),
      ...worktreeHandlers(context),
    },
    () => knownSecretsRedactor({ keys, env }),
  )

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

  const exportTrace = (jobId: string, out: NodeJS.WritableStream | string, format: ExportFormatName): Promise<number> => {
    if (!getJob(db, jobId)) return Promise.reject(new Error(`job ${jobId} not found`))
    // A job whose owner died since the last heartbeat exports as interrupted, every agent ended.
    endInterruptedJobs(db, writer, { heartbeatCounts: false })
    writer.flush()
    const redactor = knownSecretsRedactor({ keys, env })
    return exportJob(db, jobId, out, exportFormat(format, db, redactor.secrets), { redactor })
  }

  return {
    handlers,
    supervisor,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    openProject: (dir) => openProjectIn(context, dir),
    profilesFor: context.profilesFor,
    waitForJob,
    exportJsonl: (jobId, out) => exportTrace(jobId, out, 'jsonl'),
    exportTrace,
    importTrace: (file) => importTrace(context, file),
    async close() {
      await Promise.all([pool.close(), supervisor.shutdown()])
      await autoExport.settle()
      heartbeat.stop()
      writer.close()
      db.close()
    },
  }
}

/**
 * What commands must never read: Arbor's data folder (database, settings, keys, agents' code
 * cache), or only its files when the project lives inside that folder (a project beside the
 * database in tests).
 */
function arborDataPaths(dbFile: string, project: string): string[] {
  const db = path.resolve(dbFile)
  const folder = path.dirname(db)
  const relative = path.relative(folder, path.resolve(project))
  const projectInside = relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
  if (!projectInside) return [folder]
  return [db, `${db}-wal`, `${db}-shm`, path.join(folder, 'keys.json'), codeCacheDir(folder)]
}
