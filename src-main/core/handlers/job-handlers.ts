import { randomUUID } from 'node:crypto'
import type { ApiHandlers, ApiInput, ApiOutputs, ExportFormatName, TreePage } from '../api/contract'
import { ApiFailure, conflict, notFound } from '../api/errors'
import { approvalModeOf, checkNewJob, jobSettingsOf, type FieldErrors, type KeyedProviderId } from '../api/job-form'
import { demoJob, scriptedJob } from '../demo/demo-job'
import { knownSecretsRedactor } from '../settings/known-secrets'
import { keyDestinationError, resolveConnectionFor } from '../settings/providers'
import { exportJob, jsonlFormat, type ExportFormat } from '../store/export'
import { jsonlWithContentsFormat } from '../store/export-contents'
import type { SqliteDatabase } from '../store/database'
import { importTraceFile } from '../import/import-job'
import { endInterruptedJobs } from '../store/interrupted'
import { otlpFormat } from '../otlp/otlp-json'
import { getAgent, getAgents, getEvents, lastSeq, listJobs, rootAnswer } from '../store/queries'
import { defaultSettings } from '../trace/model'
import { SteerRefused, StopRefused } from '../supervisor/agent-messages'
import { FollowUpRefused } from '../supervisor/follow-ups'
import { SpawnEditRefused } from '../supervisor/spawns'
import { BudgetRefused } from '../supervisor/budget-pauses'
import { isFinishedStatus } from '../trace/events'
import { jobWorktrees } from './worktree-handlers'
import { providerSources, requireControllableJob, requireJob, requireProject, type EngineContext } from './context'

type JobHandlers = Pick<
  ApiHandlers,
  | 'listJobs'
  | 'startJob'
  | 'getTree'
  | 'getEvents'
  | 'setSpawnPaused'
  | 'killAgent'
  | 'stopAgent'
  | 'cancelSpawn'
  | 'allowSpawn'
  | 'restartAgent'
  | 'retryNow'
  | 'setAutoApprove'
  | 'setSubagentApprovals'
  | 'decideApproval'
  | 'revokeApprovedCommand'
  | 'steerAgent'
  | 'followUp'
  | 'resumeJob'
  | 'editSpawn'
  | 'setBudget'
  | 'exportJob'
  | 'importTrace'
>

/** An export's writer; `jsonl_contents` reads the file versions from the store, holding back one with a known secret. */
export function exportFormat(name: ExportFormatName, db: SqliteDatabase, secrets: readonly string[]): ExportFormat {
  if (name === 'otlp') return otlpFormat()
  return name === 'jsonl_contents' ? jsonlWithContentsFormat(db, secrets) : jsonlFormat()
}

export function jobHandlers(context: EngineContext): JobHandlers {
  const { db, writer, supervisor } = context
  const treeSnapshots = new TreeSnapshots()
  return {
    listJobs: async () => {
      const jobs = listJobs(db, context.project?.path)
      const waiting: Record<string, string[]> = {}
      for (const job of jobs) {
        if (job.status !== 'running') continue
        const pending = supervisor.pendingApprovals(job.id).map((approval) => approval.approval_id)
        if (pending.length > 0) waiting[job.id] = pending
      }
      return { jobs, waiting }
    },
    startJob: async (input) => {
      const jobId = await startJob(context, input)
      writer.flush()
      return { job_id: jobId, root_agent_id: supervisor.rootAgentId(jobId) ?? '' }
    },
    getTree: async ({ job_id, limit, page }) => {
      if (page) return treeSnapshots.page(job_id, page, limit)
      writer.flush()
      // Synchronous from flush to the last read, so no batch commits in between.
      const snapshot = {
        job: requireJob(context, job_id),
        agents: getAgents(db, job_id),
        last_seq: lastSeq(db, job_id),
        approvals: supervisor.pendingApprovals(job_id).map((approval) => ({ ...approval, job_id })),
        approved_commands: supervisor.approvedCommands(job_id),
        wrapping_up: supervisor.wrappingUp(job_id),
        held: supervisor.heldSpawns(job_id),
        unresponsive: supervisor.unresponsiveAgents(job_id),
        worktrees: jobWorktrees(db, job_id),
        answer: rootAnswer(db, job_id),
      }
      return treeSnapshots.first(snapshot, limit)
    },
    getEvents: async ({ agent_id, after_seq, limit }) => {
      writer.flush()
      return { events: getEvents(db, agent_id, after_seq, limit) }
    },
    setSpawnPaused: async ({ job_id, paused }) => {
      if (job_id !== null) requireControllableJob(context, job_id)
      supervisor.setSpawnPaused(job_id, paused)
      return { paused }
    },
    killAgent: async ({ agent_id }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      return { killed: supervisor.kill(agent_id) }
    },
    stopAgent: async ({ agent_id, mode }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      const job = requireControllableJob(context, agent.job_id)
      if (job.status !== 'running') throw conflict(`job ${job.id} is ${job.status}: only a running job's agents can be stopped`)
      if (isFinishedStatus(agent.status)) throw conflict(`agent ${agent.label} has ended (${agent.status}): there is nothing to stop`)
      try {
        if (mode === 'wrap_up') {
          const { wrapping_up, cancelled, already, note } = supervisor.wrapUp(agent_id)
          return { mode, agents: wrapping_up, cancelled, already, ...(note ? { note } : {}) }
        }
        const killed = supervisor.kill(agent_id)
        if (killed.length === 0) throw new StopRefused('conflict', `agent ${agent.label} has ended: there is nothing to stop`)
        return { mode, agents: killed, cancelled: [], already: false }
      } catch (error) {
        if (!(error instanceof StopRefused)) throw error
        throw error.code === 'not_found' ? notFound(`agent ${agent_id} in this process`) : conflict(error.message)
      }
    },
    cancelSpawn: async ({ agent_id }) => {
      const agent = getAgent(db, agent_id)
      if (agent) requireControllableJob(context, agent.job_id)
      return { cancelled: supervisor.cancelSpawn(agent_id) }
    },
    restartAgent: async ({ agent_id }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      try {
        supervisor.restartAgent(agent_id)
        return { agent_id }
      } catch (error) {
        if (!(error instanceof StopRefused)) throw error
        throw error.code === 'not_found' ? notFound(`agent ${agent_id} in this process`) : conflict(error.message)
      }
    },
    allowSpawn: async ({ agent_id }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      try {
        supervisor.allowSpawn(agent_id)
        return { agent_id }
      } catch (error) {
        if (!(error instanceof SpawnEditRefused)) throw error
        throw conflict(error.code === 'not_found' ? `agent ${agent.label} is ${agent.status}: it will not start from here` : error.message)
      }
    },
    retryNow: async ({ agent_id }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      return { retried: supervisor.retryNow(agent_id) }
    },
    setAutoApprove: async ({ job_id, value }) => {
      requireControllableJob(context, job_id)
      supervisor.setAutoApprove(job_id, value)
      return { value }
    },
    setSubagentApprovals: async ({ job_id, mode }) => {
      requireControllableJob(context, job_id)
      supervisor.setSubagentApprovals(job_id, mode)
      return { mode }
    },
    decideApproval: async ({ approval_id, decision, scope, message }) => {
      if (!supervisor.decideApproval(approval_id, decision, 'user', { scope, message })) throw notFound(`pending approval ${approval_id}`)
      return { decided: true }
    },
    steerAgent: async ({ agent_id, text }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      try {
        return await supervisor.steerAgent(agent_id, text)
      } catch (error) {
        if (!(error instanceof SteerRefused)) throw error
        throw error.code === 'not_found' ? notFound(`agent ${agent_id} in this process`) : conflict(error.message)
      }
    },
    followUp: async ({ job_id, agent_id, text, job_token_budget, job_cost_budget }) => {
      const job = requireControllableJob(context, job_id)
      const budgets = {
        ...(job_token_budget !== undefined ? { job_token_budget } : {}),
        ...(job_cost_budget !== undefined ? { job_cost_budget } : {}),
      }
      try {
        const resumed = await supervisor.followUp({
          jobId: job_id,
          agentId: agent_id,
          text,
          loadedProfiles: context.profilesFor(job.project),
          ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
        })
        writer.flush()
        return { job_id, ...resumed }
      } catch (error) {
        if (!(error instanceof FollowUpRefused)) throw error
        throw error.code === 'not_found' ? notFound(error.message.replace(/^no /, '')) : conflict(error.message)
      }
    },
    resumeJob: async ({ job_id }) => {
      // An owner that died since the last heartbeat's sweep: its job is interrupted now, not in 5 s.
      endInterruptedJobs(db, writer, { heartbeatCounts: false })
      const job = requireControllableJob(context, job_id)
      try {
        const resumed = supervisor.resumeJob(job_id, context.profilesFor(job.project))
        writer.flush()
        return { job_id, ...resumed }
      } catch (error) {
        if (!(error instanceof FollowUpRefused)) throw error
        throw error.code === 'not_found' ? notFound(error.message.replace(/^no /, '')) : conflict(error.message)
      }
    },
    editSpawn: async ({ agent_id, prompt }) => {
      const agent = getAgent(db, agent_id)
      if (!agent) throw notFound(`agent ${agent_id}`)
      requireControllableJob(context, agent.job_id)
      try {
        return { agent_id, prompt: supervisor.editSpawn(agent_id, prompt) }
      } catch (error) {
        if (!(error instanceof SpawnEditRefused)) throw error
        // Stored but not in this process's tree: it ended, or its job was interrupted.
        throw conflict(error.code === 'not_found' ? `agent ${agent.label} is ${agent.status}: it will not start from here` : error.message)
      }
    },
    setBudget: async ({ job_id, agent_id, tokens, cost_usd }) => {
      const agent = agent_id === undefined ? null : getAgent(db, agent_id)
      if (agent_id !== undefined && !agent) throw notFound(`agent ${agent_id}`)
      const jobId = agent?.job_id ?? (job_id as string)
      requireControllableJob(context, jobId)
      const change = { ...(tokens !== undefined ? { tokens } : {}), ...(cost_usd !== undefined ? { cost_usd } : {}) }
      try {
        const { caps } = supervisor.setBudget(agent ? { agentId: agent.id } : { jobId }, change)
        writer.flush()
        return { job_id: jobId, agent_id: agent?.id ?? null, ...caps }
      } catch (error) {
        if (!(error instanceof BudgetRefused)) throw error
        // Stored but not in this process: it ended, or its job was interrupted.
        throw conflict(
          error.code === 'not_found' ? `${agent ? `agent ${agent.label}` : `job ${jobId}`} is not running in this process` : error.message,
        )
      }
    },
    revokeApprovedCommand: async ({ job_id, command }) => {
      requireControllableJob(context, job_id)
      return { revoked: supervisor.revokeApprovedCommand(job_id, command) }
    },
    exportJob: async ({ job_id, path: target, format }) => {
      requireJob(context, job_id)
      writer.flush()
      // The Electron shell fills in the path from a save dialog; browsers download /export/<job>.<format>.
      if (!target) throw new ApiFailure('invalid_request', 'exportJob needs a path')
      const redactor = knownSecretsRedactor(context)
      const lines = await exportJob(db, job_id, target, exportFormat(format ?? 'jsonl', db, redactor.secrets), { redactor })
      return { path: target, lines }
    },
    importTrace: async ({ path: file }) => importTrace(context, file),
  }
}

type TreeSnapshot = Omit<ApiOutputs['getTree'], 'next'>

/**
 * The snapshots of paged getTree calls still being read. A UI reads a big tree a page at a time
 * so that no one reply costs it a long task to copy; the pages must still be one snapshot, taken
 * at one `last_seq`, or an event committed between two pages would be in neither the snapshot
 * nor the events after it. So the first call reads the whole tree, as an unpaged one does, and
 * keeps it here until its last page is read; the few newest are kept, in case a UI gave up on
 * one half way (it switched to another job).
 */
class TreeSnapshots {
  private static readonly kept = 8
  private readonly snapshots = new Map<string, { tree: TreeSnapshot; limit: number }>()

  first(tree: TreeSnapshot, limit: number | undefined): ApiOutputs['getTree'] {
    if (limit === undefined || tree.agents.length <= limit) return { ...tree, next: null }
    const snapshot = randomUUID()
    this.snapshots.set(snapshot, { tree, limit })
    for (const old of this.snapshots.keys()) {
      if (this.snapshots.size <= TreeSnapshots.kept) break
      this.snapshots.delete(old)
    }
    return { ...tree, agents: tree.agents.slice(0, limit), next: { snapshot, offset: limit } }
  }

  page(jobId: string, { snapshot, offset }: TreePage, limit: number | undefined): ApiOutputs['getTree'] {
    const kept = this.snapshots.get(snapshot)
    if (!kept || kept.tree.job.id !== jobId) throw notFound(`tree snapshot ${snapshot} of job ${jobId}`)
    const end = offset + (limit ?? kept.limit)
    const last = end >= kept.tree.agents.length
    if (last) this.snapshots.delete(snapshot)
    return { ...kept.tree, agents: kept.tree.agents.slice(offset, end), next: last ? null : { snapshot, offset: end } }
  }
}

export function importTrace(context: EngineContext, file: string) {
  context.writer.flush()
  try {
    // A Claude Code session is priced with the user's table, and known keys are taken out of it.
    return importTraceFile(context.db, file, { prices: context.settings.prices(), redactor: knownSecretsRedactor(context) })
  } catch (error) {
    throw new ApiFailure('invalid_request', error instanceof Error ? error.message : String(error))
  }
}

async function startJob(context: EngineContext, input: ApiInput<'startJob'>): Promise<string> {
  const project = requireProject(context)
  const loadedProfiles = context.profilesFor(project.path)
  if (input.kind !== 'agent') {
    const planned =
      input.kind === 'demo' ? await demoJob(project.path) : await scriptedJob(project.path, input.task?.trim() || 'Explore this project')
    const settings = defaultSettings({
      max_depth: input.kind === 'scripted' ? (input.max_depth ?? 1) : 1,
      max_concurrent_children: input.kind === 'scripted' ? (input.max_concurrent_children ?? 3) : 3,
      script: planned.script,
    })
    return context.supervisor.startJob({
      project: project.path,
      task: planned.task,
      settings,
      loadedProfiles,
      autoApprove: input.auto_approve,
      spawnPaused: input.spawn_paused,
    })
  }
  const job = input.job
  const profiles = Object.values(loadedProfiles.profiles)
  const errors: FieldErrors = checkNewJob(job, {
    prices: context.settings.prices(),
    profiles: profiles.map((profile) => profile.name),
    profileModels: profiles.map((profile) => profile.model).filter((model) => model !== 'main' && model !== 'light'),
  })
  if (job.provider !== 'scripted') {
    const provider = job.provider as KeyedProviderId
    const noKey = { noKey: job.no_key }
    const connection = resolveConnectionFor(provider, job.base_url, providerSources(context), noKey)
    if ('error' in connection) errors[job.no_key ? 'no_key' : 'provider'] ??= connection.error
    const destination = keyDestinationError(provider, job.base_url, providerSources(context), noKey)
    if (destination) errors.base_url = destination
  }
  const problems = Object.entries(errors)
  if (problems.length > 0) {
    throw new ApiFailure(
      'invalid_request',
      `startJob: ${problems.map(([field, message]) => `${field}: ${message}`).join('; ')}`,
      errors as Record<string, string>,
    )
  }
  context.settings.saveJobDefaults(project.path, project.name, job)
  const script = job.provider === 'scripted' ? (await scriptedJob(project.path, job.task)).script : undefined
  return context.supervisor.startJob({
    project: project.path,
    task: job.task,
    settings: jobSettingsOf(job, script),
    loadedProfiles,
    subagentApprovals: approvalModeOf(job),
    spawnPaused: job.spawn_paused,
  })
}
