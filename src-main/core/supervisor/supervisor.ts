import { AgentWorktrees } from './agent-worktrees'
import { randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { builtinProfiles } from '../job/profiles'
import type { LoadedProfiles } from '../job/profiles/load'
import type { AgentStatus, EventType, TerminalReason } from '../trace/events'
import { createProvider } from '../providers/create-provider'
import { sleep as realSleep } from '../providers/sleep'
import type { Sleep } from '../providers/types'
import type { AgentInit, AgentOutcome, ToAgent } from '../protocol/messages'
import { defaultRateLimitWaitMinutes, type JobSettings } from '../trace/model'
import type { SubagentApprovals } from '../trace/statuses'
import { controlValueOfApprovalMode } from '../trace/projection'
import { addCost, addUsage } from '../trace/usage'
import { parseAgentEvent } from './agent-events'
import { FileChangeIntake } from './file-change-intake'
import { agentInit, modelFor, projectInstructionsData, providerConfig } from './agent-init'
import { AgentProcesses, type AgentMessage } from './agent-processes'
import { ApprovalDesk, type DecisionOptions, type PendingApprovalView } from './approvals'
import { WallClock } from './wall-clock'
import { budgetStep, jobUsage, onBudgetOf, spentBranch } from './budget'
import { BudgetPauses, BudgetRefused, type CapsChange, type SpentCap } from './budget-pauses'
import { ModelCalls, type CallRecord } from './model-calls'
import { defaultMaxModelCalls, ProviderLimits } from './provider-limits'
import type { ProcessHost } from './process-host'
import { renderFirstMessage } from './request'
import {
  buildEnvelope,
  childEventData,
  isBackground,
  isLive,
  jobRedactor,
  newAgentRuntime,
  newJobRuntime,
  storedJob,
  subtreePostOrder,
  type AgentRuntime,
  type Ending,
  type JobContext,
  type JobRuntime,
  type TraceSink,
} from './runtime'
import { FollowUps, type FollowUpOptions } from './follow-ups'
import { JobResumes } from './resume-job'
import { AgentMessages, StopRefused, type WrapUpResult } from './agent-messages'
import { AgentHealth } from './health'
import type { Continuation, ResumeSource } from './rehydrate'
import type { HoldingLimit } from './spawn-policy'
import { SpawnEditRefused, Spawns } from './spawns'
import { TraceEmitter } from './trace-emitter'
import { AgentWaits } from './waits'
import { defaultMcpCallTimeoutMs, McpServers } from './mcp-servers'

export interface SupervisorOptions {
  sink: TraceSink
  host: ProcessHost
  /** A job's key, prices and project instructions (the engine's settings); none by default. */
  jobContext?: (project: string, settings: JobSettings) => JobContext
  now?: () => Date
  newId?: (prefix: string) => string
  /** Time between asking an agent to end and forcing it (product.md §4: 2 s). */
  killGraceMs?: number
  /** An agent process that has not said `ready` by then fails (30 s), counted from its start. */
  readyTimeoutMs?: number
  /** Agent processes starting at once (spawned, not yet ready); the rest wait. Default 2 per core. */
  maxStartingProcesses?: number
  /** The scripted provider's waits; real time by default. */
  sleep?: Sleep
  /** Where provider keys are looked for to redact (besides the job's context's); the process environment by default. */
  env?: NodeJS.ProcessEnv
  /** The trace read back, to continue an agent that ended (follow-ups, `task` with `resume`); without it none can be. */
  resumeSource?: ResumeSource
  /**
   * A user watches and can allow a spawn held by a job limit (max_agents, max_spawns_per_turn):
   * true (the default) in the app and `arbor serve`; false for `arbor run`, where such a spawn is
   * refused with the reason, as there is nobody to allow it.
   */
  userDecidesSpawns?: boolean
  /**
   * Agent processes beat every `intervalMs` (5 s); one silent for `unresponsiveAfterMs` (30 s) is
   * marked unresponsive (health.ts). Short in tests.
   */
  heartbeat?: { intervalMs?: number; unresponsiveAfterMs?: number }
  /** Model calls in flight at once per API endpoint (Settings, `arbor run --max-model-calls`); read at each call. Default 8. */
  maxModelCalls?: () => number
  /** How long an MCP tools/call (or a server's start) may take; MCP_TOOL_TIMEOUT or 60 s by default. Short in tests. */
  mcpCallTimeoutMs?: number
}

export interface StartJobOptions {
  project: string
  task: string
  settings: JobSettings
  /** The profiles this job may use (built-ins plus the project's own) and what failed to load; built-ins by default. */
  loadedProfiles?: LoadedProfiles
  /** Subagents' risky commands: denied (the default), asked of the user, or approved. */
  subagentApprovals?: SubagentApprovals
  /** The older flag: true is `subagentApprovals: 'approve'`. */
  autoApprove?: boolean
  spawnPaused?: boolean
}

const defaultNewId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`

/**
 * Owns the delegation tree: turns `task` calls into spawn requests under the policy of
 * product.md §4, runs each agent in its own process through a ProcessHost, and applies the
 * user's controls. Everything it learns or decides is written to the trace as it happens.
 */
export class Supervisor {
  private readonly jobs = new Map<string, JobRuntime>()
  private readonly agents = new Map<string, AgentRuntime>()
  /** Each job's last change of each path, to drop a `bash` change that is another agent's write seen again. */
  /** `file.change` events from agents: their folder, overlapping commands, contents and echoes (file-change-intake.ts). */
  private readonly fileChanges: FileChangeIntake
  private readonly now: () => Date
  private readonly newId: (prefix: string) => string
  private allPaused = false
  private readonly jobEndListeners = new Set<(jobId: string) => void>()
  private readonly trace: TraceEmitter
  private readonly approvals: ApprovalDesk
  private readonly models: ModelCalls
  private readonly processes: AgentProcesses
  private readonly spawns: Spawns
  /** Worktree isolation: children's worktrees, their commits at the end, merges (agent-worktrees.ts). */
  readonly worktrees: AgentWorktrees
  private readonly followUps: FollowUps
  private readonly resumes: JobResumes
  private readonly messages: AgentMessages
  private readonly waits: AgentWaits
  private readonly health: AgentHealth
  private readonly budgets: BudgetPauses
  private readonly mcp: McpServers

  constructor(private readonly options: SupervisorOptions) {
    this.now = options.now ?? (() => new Date())
    this.newId = options.newId ?? defaultNewId
    this.trace = new TraceEmitter(options.sink, this.now)
    this.mcp = new McpServers(this.trace, options.mcpCallTimeoutMs ?? defaultMcpCallTimeoutMs(options.env ?? process.env))
    this.waits = new AgentWaits({ trace: this.trace, clock: (agent, waiting) => this.userWait(agent, waiting), now: () => Date.now() })
    this.health = new AgentHealth({
      trace: this.trace,
      intervalMs: options.heartbeat?.intervalMs ?? 5000,
      unresponsiveAfterMs: options.heartbeat?.unresponsiveAfterMs ?? 30_000,
      now: () => Date.now(),
    })
    this.processes = new AgentProcesses({
      host: options.host,
      trace: this.trace,
      readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
      killGraceMs: options.killGraceMs ?? 2000,
      maxStartingProcesses: options.maxStartingProcesses ?? Math.max(2, 2 * availableParallelism()),
      events: {
        message: (agent, message) => this.onAgentMessage(agent, message),
        exited: (agent, code, signal) => this.onAgentExit(agent, code, signal),
        alive: (agent) => this.health.beat(agent),
        failed: (agent, why) =>
          why === 'not_ready'
            ? this.stop(agent, 'failed', 'crashed')
            : this.finish(agent, {
                status: 'failed',
                terminalReason: 'crashed',
                result: null,
                summary: 'the agent process could not start',
              }),
      },
    })
    this.approvals = new ApprovalDesk(
      this.trace,
      (agent, message) => this.send(agent, message),
      (agent, waiting) => this.userWait(agent, waiting),
    )
    this.worktrees = new AgentWorktrees(this.trace)
    this.fileChanges = new FileChangeIntake(this.trace)
    this.spawns = new Spawns({
      worktrees: this.worktrees,
      trace: this.trace,
      newId: this.newId,
      now: this.now,
      addAgent: (fields) => this.addAgent(fields),
      isPaused: (job) => this.isPaused(job),
      budgetHold: (parent) => this.budgets.spawnHold(parent),
      send: (agent, message) => this.send(agent, message),
      launch: (agent, firstMessage) => this.launch(agent, firstMessage),
      userDecides: options.userDecidesSpawns ?? true,
      userWait: (agent, waiting) => this.userWait(agent, waiting),
    })
    this.messages = new AgentMessages({
      trace: this.trace,
      agents: this.agents,
      newId: this.newId,
      now: this.now,
      send: (agent, message) => this.send(agent, message),
      stop: (agent, status, reason, summary) => this.stop(agent, status, reason, summary),
      finish: (agent, ending, parentResult) => this.finish(agent, ending, parentResult),
    })
    const continuation: Continuation = {
      trace: this.trace,
      sink: options.sink,
      source: options.resumeSource,
      jobs: this.jobs,
      agents: this.agents,
      jobContext: (project, settings) => this.jobContext(project, settings),
      env: options.env ?? process.env,
      launch: (agent, firstMessage, resume) => this.launch(agent, firstMessage, resume),
    }
    this.followUps = new FollowUps({
      ...continuation,
      isPaused: (job) => this.isPaused(job),
      send: (agent, message) => this.send(agent, message),
      dropPending: (agent, reason) => {
        this.approvals.denyAllFor(agent, 'auto_deny', reason)
        this.messages.agentEnded(agent, 'crashed')
      },
    })
    this.resumes = new JobResumes({
      ...continuation,
      wait: (child) => this.spawns.again(child),
      pump: (parent) => this.spawns.pump(parent),
    })
    const sleep = options.sleep ?? realSleep
    this.models = new ModelCalls({
      providerFor: (agent) => (agent.provider ??= createProvider(providerConfig(agent), { sleep, prices: agent.job.context.prices })),
      send: (agent, message) => this.send(agent, message),
      refusal: (agent) => this.modelCallRefusal(agent),
      onCallEnd: (agent, record) => this.recordCall(agent, record),
      redact: (agent, text) => agent.job.redactor.redact(text),
      now: () => Date.now(),
      limits: new ProviderLimits({ maxConcurrentCalls: options.maxModelCalls ?? (() => defaultMaxModelCalls) }),
      waits: {
        start: (agent, reason, fields) => this.waits.start(agent, reason, fields),
        // Only its own: a budget pause that took over is the budget's to end.
        end: (agent, outcome) => void (this.waits.reasonOf(agent) === 'rate_limit' && this.waits.end(agent, outcome)),
      },
      rateLimitWaitMs: (agent) => (agent.job.settings.rate_limit_wait_minutes ?? defaultRateLimitWaitMinutes) * 60_000,
    })
    this.budgets = new BudgetPauses({
      trace: this.trace,
      waits: this.waits,
      replayCall: (agent, callId, call) => this.models.start(agent, callId, call),
      releaseSpawns: (job) => {
        if (this.isPaused(job)) return
        this.spawns.releaseHeld(job)
        for (const parent of job.agents.values()) if (parent.waiting.length > 0 && !parent.ended) this.spawns.pump(parent)
      },
    })
  }

  startJob(options: StartJobOptions): string {
    const profiles = options.loadedProfiles?.profiles ?? builtinProfiles
    const rootProfile = profiles[options.settings.profile]
    if (!rootProfile) throw new Error(`unknown profile "${options.settings.profile}"`)
    const context = this.jobContext(options.project, options.settings)
    const job = newJobRuntime({
      id: this.newId('job'),
      project: options.project,
      settings: options.settings,
      context,
      redactor: jobRedactor(context, this.options.env ?? process.env),
      profiles,
      subagentApprovals: options.subagentApprovals ?? (options.autoApprove ? 'approve' : 'deny'),
      paused: options.spawnPaused ?? false,
    })
    if (options.loadedProfiles?.mcpServers) job.mcpServers = options.loadedProfiles.mcpServers
    this.jobs.set(job.id, job)
    // The user's own words go where an agent's do, redacted as theirs are: a key pasted into the
    // task, a base URL's password or `?key=`. The job itself connects with its settings as given.
    const task = job.redactor.redact(options.task)
    const settings = job.redactor.redactDeep(options.settings)
    this.options.sink.createJob({ ...storedJob(job, task, this.now()), settings })
    this.trace.job(job, 'job.start', { task, settings })
    if (job.subagentApprovals !== 'deny') {
      this.trace.job(job, 'control', {
        action: 'auto_approve',
        target: job.id,
        value: controlValueOfApprovalMode(job.subagentApprovals),
        by: 'user',
      })
    }
    if (job.paused) this.trace.job(job, 'control', { action: 'pause', target: job.id, value: true, by: 'user' })
    for (const problem of options.loadedProfiles?.errors ?? []) {
      this.trace.job(job, 'error', { source: 'profiles', file: problem.file, field: problem.field, message: problem.message })
    }
    const root = this.addAgent({
      id: this.newId('agent'),
      job,
      parent: null,
      profile: rootProfile,
      label: 'root',
      task,
      request: null,
      callId: null,
      status: 'running',
    })
    job.root = root
    this.launch(root, renderFirstMessage(task, undefined, job.project, this.now()))
    return job.id
  }

  onJobEnd(listener: (jobId: string) => void): () => void {
    this.jobEndListeners.add(listener)
    return () => this.jobEndListeners.delete(listener)
  }

  /** The OS process id of a running agent (shown to users, checked by tests). */
  pidOf(agentId: string): number | undefined {
    return this.agents.get(agentId)?.process?.pid
  }

  /** The root agent of a job started in this session. */
  rootAgentId(jobId: string): string | undefined {
    return this.jobs.get(jobId)?.root?.id
  }

  /** The agent runs in this process (it has not ended): its worktree is in use, not to be merged, committed or removed. */
  isAgentRunning(agentId: string): boolean {
    const agent = this.agents.get(agentId)
    return agent !== undefined && !agent.ended
  }

  isActive(jobId: string): boolean {
    return this.jobs.get(jobId)?.active ?? false
  }

  get spawningPausedForAll(): boolean {
    return this.allPaused
  }

  /** Pause or resume spawning for one job, or for every job when `jobId` is null. */
  setSpawnPaused(jobId: string | null, paused: boolean): void {
    const targets = jobId === null ? [...this.jobs.values()].filter((job) => job.active) : [this.jobs.get(jobId) ?? { id: jobId, paused }]
    if (jobId === null) this.allPaused = paused
    for (const job of targets) {
      if (jobId !== null) job.paused = paused
      this.trace.job(job, 'control', { action: paused ? 'pause' : 'resume', target: jobId ?? 'all', value: paused, by: 'user' })
      if (!paused && 'agents' in job && !this.isPaused(job)) this.spawns.releaseHeld(job)
    }
  }

  /** Flips subagent auto-approve: `setSubagentApprovals` with approve or deny. */
  setAutoApprove(jobId: string, value: boolean): void {
    this.setSubagentApprovals(jobId, value ? 'approve' : 'deny')
  }

  /**
   * Sets how the job's subagents' risky commands are decided. Requests waiting now are decided by
   * the new mode (deny or approve; ask leaves them waiting). For a job not running in this session
   * only the setting is recorded.
   */
  setSubagentApprovals(jobId: string, mode: SubagentApprovals): void {
    const job = this.jobs.get(jobId)
    if (job) job.subagentApprovals = mode
    this.trace.job(job ?? { id: jobId }, 'control', {
      action: 'auto_approve',
      target: jobId,
      value: controlValueOfApprovalMode(mode),
      by: 'user',
    })
    if (job) this.approvals.applyMode(job)
  }

  /**
   * Sends the user's message to a running agent, delivered at its next step boundary
   * (agent-messages.ts). Resolves once delivered; rejects (SteerRefused) when it ends first.
   */
  steerAgent(agentId: string, text: string): Promise<{ steer_id: string; sent_at: string; delivered_at: string }> {
    return this.messages.steer(agentId, text)
  }

  /**
   * Continues an agent that ended (the root by default) with the user's new message, in the same
   * job and tree (follow-ups.ts). Throws FollowUpRefused.
   */
  followUp(options: FollowUpOptions): Promise<{ agent_id: string }> {
    return this.followUps.followUp(options)
  }

  /**
   * Resumes an interrupted job (resume-job.ts): its agents that were running go on from their
   * histories, its held and queued spawns wait again. Throws FollowUpRefused.
   */
  resumeJob(jobId: string, loadedProfiles?: LoadedProfiles): { agent_ids: string[] } {
    return this.resumes.resume(jobId, loadedProfiles)
  }

  /** The job's agents told to wrap up that have not ended yet (running jobs of this process only). */
  wrappingUp(jobId: string): string[] {
    return this.messages.wrappingUp(this.jobs.get(jobId))
  }

  /** Forgets a command approved for the whole job; false when the job had no such rule. */
  revokeApprovedCommand(jobId: string, command: string): boolean {
    const job = this.jobs.get(jobId)
    return job ? this.approvals.revokeForJob(job, command) : false
  }

  /** The commands approved for the whole job, in the order they were approved. */
  approvedCommands(jobId: string): string[] {
    return [...(this.jobs.get(jobId)?.approvedCommands ?? [])]
  }

  /** Ends an agent and all its descendants; returns the ids of the agents it stopped. */
  kill(agentId: string): string[] {
    const target = this.agents.get(agentId)
    if (!target || target.ended) return []
    this.trace.agent(target, 'control', { action: 'kill', target: agentId, value: true, by: 'user' })
    const stopped: string[] = []
    for (const agent of subtreePostOrder(target)) {
      if (agent.ended) continue
      stopped.push(agent.id)
      this.stop(agent, 'killed', 'killed')
    }
    return stopped
  }

  /**
   * Asks an agent to finish now and report what it has, its descendants first: each is told at
   * its next step boundary (before its next model call; nothing is cut short) and then has
   * `wrapUpSteps` model calls to complete, after which it ends `killed` with its last output. A
   * parent blocked in a `task` call takes it in once its children have answered. Held and queued
   * spawns in the subtree never start: they are cancelled. Its parent gets its envelope marked
   * `wrapped_up`. An agent already wrapping up is left as it is (`already`).
   */
  wrapUp(agentId: string): WrapUpResult {
    const result = this.messages.wrapUp(agentId)
    // A paused agent goes on to finish: its held call is made, and its wrap-up comes before the next.
    this.budgets.releaseWrappingUp()
    return result
  }

  /**
   * New token and/or cost caps for a job (`jobId`) or for the branch under an agent (`agentId`):
   * a key left out keeps its cap, null takes it away. Refused (BudgetRefused) for a job or agent
   * not running here, a cap not above what is spent, or a branch cap that would let it spend more
   * than the job has left. Agents paused under a cap that is no longer spent go on.
   */
  setBudget(
    target: { jobId: string } | { agentId: string },
    change: CapsChange,
  ): { caps: { tokens: number | null; cost_usd: number | null } } {
    if ('jobId' in target) {
      const job = this.jobs.get(target.jobId)
      if (!job) throw new BudgetRefused('not_found', `no job ${target.jobId} running in this process`)
      if (job.ended) throw new BudgetRefused('conflict', `job ${job.id} has ended: raise its budget with a follow-up`)
      return { caps: this.budgets.setJob(job, change) }
    }
    const agent = this.agents.get(target.agentId)
    if (!agent) throw new BudgetRefused('not_found', `no agent ${target.agentId} running in this process`)
    return { caps: this.budgets.setBranch(agent, change) }
  }

  /** The caps the job's paused agents wait at (the job's, a branch's), for a terminal to ask about. */
  spentCaps(jobId: string): SpentCap[] {
    const job = this.jobs.get(jobId)
    return job ? this.budgets.spentCaps(job) : []
  }

  /**
   * The user chose to stop at a spent cap rather than raise it: the job's (`agentId` null) or a
   * branch's live agents end with `token_budget`, and its held and queued spawns are cancelled.
   */
  stopAtBudget(jobId: string, agentId: string | null = null): void {
    const job = this.jobs.get(jobId)
    if (!job || job.ended) return
    if (agentId === null) {
      job.overBudget = true
      return this.stopForBudget(job)
    }
    const branch = this.agents.get(agentId)
    if (branch?.job === job) this.stopForBudget(job, subtreePostOrder(branch), 'its branch')
  }

  /**
   * Restarts a running agent in a new process, as a crash restart does (FollowUps.restartCrashed):
   * its process is killed at once (SIGKILL: a stopped or hung one cannot answer), and it goes on
   * from its history. Meant for an unresponsive agent, allowed for any live one; not counted
   * against the job's restart_crashed (recorded as `agent.restart` with cause `user`). Throws
   * StopRefused for an unknown agent, or one without a live process.
   */
  restartAgent(agentId: string): void {
    const agent = this.agents.get(agentId)
    if (!agent) throw new StopRefused('not_found', `no agent ${agentId}`)
    if (agent.ended || agent.stopping || !agent.process || !isLive(agent)) {
      const state = agent.stopping ? 'being stopped' : agent.process || agent.ended ? agent.status : 'not started yet'
      throw new StopRefused('conflict', `agent ${agent.label} is ${state}: only a running agent's process can be restarted`)
    }
    if (!agent.job.active) throw new StopRefused('conflict', `the job of ${agent.label} is ending`)
    if (agent.restartRequested) return
    this.trace.agent(agent, 'control', { action: 'restart', target: agentId, value: true, by: 'user' })
    agent.restartRequested = true
    agent.process.kill(true)
  }

  /** "Retry now": the agent's model call waiting for a rate limit is made again at once. False when it was not waiting. */
  retryNow(agentId: string): boolean {
    const agent = this.agents.get(agentId)
    return agent && !agent.ended ? this.models.retryNow(agent) : false
  }

  /** Cancels a held or queued spawn; the parent's `task` call gets an error. */
  cancelSpawn(agentId: string): boolean {
    const agent = this.agents.get(agentId)
    if (!agent || agent.ended || (agent.status !== 'held' && agent.status !== 'queued')) return false
    this.trace.agent(agent, 'control', { action: 'cancel_spawn', target: agentId, value: true, by: 'user' })
    this.finish(
      agent,
      { status: 'cancelled', terminalReason: 'cancelled', result: null, summary: 'spawn cancelled by the user' },
      { ok: false, error: 'spawn cancelled by the user' },
    )
    return true
  }

  /**
   * Lets a spawn held by a job limit (max_agents, max_spawns_per_turn) start past it (Spawns.allow).
   * Throws SpawnEditRefused for an unknown agent or one not held by a limit.
   */
  allowSpawn(agentId: string): void {
    const agent = this.agents.get(agentId)
    if (!agent) throw new SpawnEditRefused('not_found', `no agent ${agentId}`)
    this.spawns.allow(agent)
  }

  /** The job's spawns held by a limit, waiting for the user to allow or cancel them (running jobs of this process only). */
  heldSpawns(jobId: string): { agent_id: string; limit: HoldingLimit; reason: string }[] {
    const job = this.jobs.get(jobId)
    if (!job) return []
    return [...job.agents.values()].flatMap((agent) => (agent.heldBy && !agent.ended ? [{ agent_id: agent.id, ...agent.heldBy }] : []))
  }

  /** The job's agents whose process has gone silent past the threshold (running jobs of this process only). */
  unresponsiveAgents(jobId: string): { agent_id: string; last_heartbeat_at: string }[] {
    const job = this.jobs.get(jobId)
    if (!job) return []
    return [...job.agents.values()].flatMap((agent) =>
      agent.unresponsive && !agent.ended
        ? [{ agent_id: agent.id, last_heartbeat_at: new Date(agent.lastBeatAt ?? Date.now()).toISOString() }]
        : [],
    )
  }

  /**
   * Gives a held or queued spawn the user's prompt in place of its parent's (Spawns.edit): it
   * starts with it. Returns the prompt as recorded; throws SpawnEditRefused.
   */
  editSpawn(agentId: string, prompt: string): string {
    const agent = this.agents.get(agentId)
    if (!agent) throw new SpawnEditRefused('not_found', `no agent ${agentId}`)
    return this.spawns.edit(agent, prompt)
  }

  /**
   * Decides a pending approval (a root's, or a subagent's in ask mode): by the user, or `auto_deny`
   * where nobody can be asked. `scope: 'job'` approves the same command for the rest of the job;
   * a denial's `message` goes to the agent.
   */
  decideApproval(
    approvalId: string,
    decision: 'approved' | 'denied',
    by: 'user' | 'auto_deny' = 'user',
    options: DecisionOptions = {},
  ): boolean {
    return this.approvals.decide(this.jobs.values(), approvalId, decision, by, options)
  }

  pendingApprovals(jobId: string): PendingApprovalView[] {
    return this.approvals.pending(this.jobs.get(jobId))
  }

  /** Stops every live agent (app or server shutting down) and waits for their processes to exit. */
  async shutdown(): Promise<void> {
    for (const job of this.jobs.values()) {
      if (job.active && job.root) this.kill(job.root.id)
    }
    const exits = [...this.agents.values()].filter((agent) => agent.process).map((agent) => agent.exited)
    await Promise.all(exits)
    await this.mcp.shutdown()
  }

  // --- starting agents --------------------------------------------------------------------

  private addAgent(fields: Omit<Parameters<typeof newAgentRuntime>[0], 'now'>): AgentRuntime {
    const agent = newAgentRuntime({ ...fields, now: Date.now() })
    fields.job.agents.set(agent.id, agent)
    this.agents.set(agent.id, agent)
    fields.parent?.children.push(agent)
    return agent
  }

  private launch(agent: AgentRuntime, firstMessage: string, resume?: AgentInit['resume']): void {
    const job = agent.job
    agent.status = 'running'
    agent.model = modelFor(agent)
    if (!resume) this.recordStart(agent)
    const budgetTokens = agent.request?.budget_tokens
    if (!resume && budgetTokens !== undefined) this.budgets.setByParent(agent, budgetTokens)
    // A restart after a crash goes on with the run it was: its start time and its wall clock stand.
    const restart = resume?.restart === true
    if (!restart) agent.startedAt = Date.now()
    const timeoutMs = job.settings.agent_timeout_ms ?? (agent.parent ? job.settings.subagent_timeout_ms : null)
    if (timeoutMs && !(restart && agent.clock)) {
      agent.clock = new WallClock(timeoutMs, () => this.stop(agent, 'failed', 'timeout'))
      agent.clock.resume()
    }
    const start = (mcpTools: AgentInit['mcp_tools']): void =>
      this.processes.start(agent, () => ({
        ...agentInit(agent, firstMessage, resume),
        heartbeat_ms: this.health.intervalMs,
        ...(mcpTools && mcpTools.length > 0 ? { mcp_tools: mcpTools } : {}),
      }))
    if (!agent.profile.mcp_servers?.length) return start(undefined)
    // Its MCP servers start (or are already running for the job) before its process does: it is offered their tools.
    void this.mcp.toolsFor(agent).then(
      (tools) => {
        if (!agent.ended && !agent.stopping) start(tools)
      },
      () => {
        if (!agent.ended && !agent.stopping) start(undefined)
      },
    )
  }

  /** The process ids of a job's running MCP stdio servers (tests: gone after the job). */
  mcpServerPids(jobId: string): Promise<number[]> {
    return this.mcp.pids(jobId)
  }

  private recordStart(agent: AgentRuntime): void {
    this.trace.agent(agent, 'agent.start', {
      profile: agent.profile.name,
      model: agent.model,
      label: agent.label,
      task: agent.task,
      tools: agent.profile.tools,
      max_steps: agent.profile.max_steps,
      context_token_budget: agent.profile.context_token_budget,
      // The agent's own cap (its profile's): the job's caps change (setBudget) and are the job's to show.
      total_token_budget: agent.profile.total_token_budget,
      ...projectInstructionsData(agent),
      ...(isBackground(agent) ? { background: true as const } : {}),
    })
  }

  // --- messages from agent processes ------------------------------------------------------

  /** A live agent's message, parsed and redacted by AgentProcesses. */
  private onAgentMessage(agent: AgentRuntime, message: AgentMessage): void {
    switch (message.type) {
      case 'event':
        this.onAgentEvent(agent, message.event_type, message.ts, message.data, message.contents)
        return
      case 'model_call':
        agent.spawnsThisTurn = 0
        if (this.messages.wrapUpSpent(agent)) return
        if (this.budgets.holdCall(agent, message.call_id, message)) return
        this.models.start(agent, message.call_id, message)
        return
      case 'model_cancel':
        this.models.cancel(agent, message.call_id)
        return
      case 'spawn':
        this.spawns.request(agent, message.call_id, message.request)
        return
      case 'resume_child':
        void this.followUps.resumeChild(agent, message.call_id, message.agent_id, message.prompt)
        return
      case 'merge_branch':
        this.send(agent, { type: 'merge_result', call_id: message.call_id, result: this.worktrees.mergeForParent(agent, message.agent_id) })
        return
      case 'approval':
        this.approvals.request(agent, message.approval_id, message.tool, message.command, message.reason)
        return
      case 'command':
        this.fileChanges.command(agent, message.call_id, message.running)
        return
      case 'mcp_call':
        void this.mcp.call(agent, message).then((result) => {
          if (!agent.ended) this.send(agent, { type: 'mcp_result', call_id: message.call_id, result })
        })
        return
      case 'done':
        this.onAgentDone(agent, message.outcome)
        return
    }
  }

  private onAgentEvent(agent: AgentRuntime, type: EventType, ts: string, data: unknown, contents?: string[]): void {
    // job.*, agent.*, llm.call, subagent.*, approval.*, control and budget.* are the supervisor's to
    // record; the rest is checked against its schema before it reaches the trace.
    const parsed = parseAgentEvent(type, data)
    if (!parsed.ok) {
      this.trace.agent(agent, 'error', { message: parsed.error })
      return
    }
    const { event } = parsed
    if (event.type === 'file.change') return this.fileChanges.change(agent, event.data, ts, contents)
    if (event.type === 'message' && !this.messages.admit(agent, event.data, ts)) return
    if (event.type === 'tool.call') {
      agent.toolUsage[event.data.name] = (agent.toolUsage[event.data.name] ?? 0) + 1
    } else if (event.type === 'message' && event.data.role === 'assistant' && event.data.content) {
      agent.lastText = event.data.content
    }
    this.trace.agent(agent, event.type, event.data, ts)
  }

  /** The one place a model call's usage is counted: recorded as `llm.call`, then checked against the job's caps. */
  private recordCall(agent: AgentRuntime, record: CallRecord): void {
    // A call cut short as its agent's process went away: its agent.end already has the totals.
    if (agent.ended) return
    agent.steps += 1
    agent.usage = addUsage(agent.usage, record.usage)
    agent.costUsd = addCost(agent.costUsd, record.cost_usd)
    const { aborted, ...fields } = record
    this.trace.agent(agent, 'llm.call', aborted ? { ...fields, aborted } : fields)
    const job = agent.job
    if (!aborted && record.cost_usd === null && job.settings.job_cost_budget !== null && !job.overBudget) {
      // A cost cap that cannot be counted cannot hold: stop rather than spend without a limit.
      this.trace.job(job, 'error', {
        message: `model "${record.model}" has no price, so the job's cost budget cannot be enforced; the job stops (add a price in Settings ▸ Prices)`,
      })
      job.overBudget = true
      this.stopForBudget(job)
      return
    }
    this.checkBudget(job, agent)
  }

  /** Why a model call may not start now; null when it may. */
  private modelCallRefusal(agent: AgentRuntime): string | null {
    if (agent.ended || agent.stopping) return 'the agent is being stopped'
    if (agent.job.overBudget) return "the job's token or cost budget is spent"
    return null
  }

  private onAgentDone(agent: AgentRuntime, outcome: AgentOutcome): void {
    // An agent being stopped ends when its process is gone, as what the user asked for.
    if (agent.stopping) return
    this.finish(agent, {
      status: outcome.status,
      terminalReason: outcome.terminal_reason,
      result: outcome.result,
      summary: outcome.summary,
    })
    this.processes.expectExit(agent)
  }

  private onAgentExit(agent: AgentRuntime, code: number | null, signal: string | null): void {
    this.models.abortAll(agent, 'the agent process ended')
    this.health.gone(agent)
    // Its commands ended with it (a restarted agent runs its next ones in a new process).
    this.fileChanges.agentEnded(agent)
    const restartRequested = agent.restartRequested
    agent.restartRequested = false
    this.budgets.processExited(agent)
    if (agent.ended) return
    if (restartRequested && !agent.stopping) {
      if (this.followUps.restartCrashed(agent, { code, signal }, 'user')) return
      this.finish(agent, {
        status: 'failed',
        terminalReason: 'crashed',
        result: agent.lastText || null,
        summary: 'the agent could not be restarted',
      })
      return
    }
    if (agent.stopping) {
      const { status, reason, summary } = agent.stopping
      this.finish(agent, {
        status,
        terminalReason: reason,
        result: agent.lastText || null,
        summary: summary ?? partialSummary(agent, reason),
      })
      return
    }
    this.trace.agent(agent, 'error', { message: `agent process exited unexpectedly (code ${code}, signal ${signal})` })
    if (this.followUps.restartCrashed(agent, { code, signal })) return
    this.finish(agent, {
      status: 'failed',
      terminalReason: 'crashed',
      result: agent.lastText || null,
      summary: 'the agent process crashed',
    })
  }

  // --- ending -----------------------------------------------------------------------------

  /** Ends a held/queued agent at once, or asks a running one to end and forces it after the grace time. */
  private stop(agent: AgentRuntime, status: AgentStatus, reason: TerminalReason, summary?: string): void {
    // The first reason stands: a child stopped by the budget is not re-labelled cancelled when its root ends.
    if (agent.ended || agent.stopping) return
    if (!agent.process) {
      if (agent.parent) agent.parent.waiting = agent.parent.waiting.filter((waiting) => waiting !== agent)
      this.finish(agent, { status, terminalReason: reason, result: null, summary: summary ?? partialSummary(agent, reason) })
      return
    }
    // Asked to end, it has nothing left to approve: a late answer to its dialog must not be recorded.
    this.approvals.denyAllFor(agent, status === 'killed' ? 'user' : 'auto_deny', `the agent ended (${reason})`)
    agent.stopping = { status, reason, ...(summary ? { summary } : {}) }
    this.budgets.drop(agent)
    this.models.abortAll(agent, reason)
    this.processes.stop(agent)
  }

  private finish(agent: AgentRuntime, ending: Ending, parentResult?: { ok: false; error: string }): void {
    if (agent.ended) return
    this.waits.end(agent, 'ended')
    agent.ended = true
    agent.status = ending.status
    agent.clock?.stop()
    this.spawns.heldByLimitEnded(agent)
    this.budgets.drop(agent)
    this.messages.agentEnded(agent, ending.terminalReason)
    this.approvals.denyAllFor(agent, ending.status === 'killed' ? 'user' : 'auto_deny', `the agent ended (${ending.terminalReason})`)
    const now = Date.now()
    // Committed before the envelope is made: it names the branch and the files.
    const envelope = { ...buildEnvelope(agent, ending, now), ...this.worktrees.ended(agent) }
    this.trace.agent(agent, 'agent.end', {
      status: ending.status,
      terminal_reason: ending.terminalReason,
      result: ending.result,
      summary: ending.summary,
      usage: agent.usage,
      cost_usd: agent.costUsd,
      steps: agent.steps,
      tool_usage: agent.toolUsage,
      duration_ms: envelope.stats.duration_ms,
      ...(agent.wrapUp ? { wrapped_up: true } : {}),
    })
    const parent = agent.parent
    if (parent) {
      this.trace.agent(parent, 'subagent.end', { ...childEventData(agent), envelope })
      if (!parent.ended && agent.reportsToParent) {
        this.send(parent, { type: 'child_result', agent_id: agent.id, description: agent.label, envelope })
      } else if (!parent.ended && agent.callId && isBackground(agent)) {
        // Its parent's call returned long ago: the envelope (a cancelled spawn's too) arrives on its own.
        this.send(parent, { type: 'background_end', agent_id: agent.id, envelope })
      } else if (!parent.ended && agent.callId) {
        this.send(parent, {
          type: 'spawn_result',
          call_id: agent.callId,
          result: parentResult ?? { ok: true, envelope },
        })
      }
      this.spawns.pump(parent)
    }
    // Background children (and children followed up while it ran) do not outlive their parent: nobody would await them.
    for (const child of agent.children) {
      if (!child.ended && (isBackground(child) || child.reportsToParent)) this.stop(child, 'cancelled', 'cancelled')
    }
    const job = agent.job
    if (agent === job.root) {
      job.rootReason = ending.terminalReason
      // No more spawns; what still runs is stopped, and the job ends once every agent has.
      job.active = false
      for (const other of job.agents.values()) {
        if (!other.ended) this.stop(other, 'cancelled', 'cancelled')
      }
    }
    if (job.root?.ended && !job.ended && [...job.agents.values()].every((each) => each.ended)) this.endJob(job, job.root.status)
  }

  /** Written after every agent has ended, so `job.end`'s usage is exactly the sum of theirs. */
  private endJob(job: JobRuntime, rootStatus: AgentStatus): void {
    job.ended = true
    const status = rootStatus === 'completed' || rootStatus === 'partial' ? 'completed' : rootStatus === 'failed' ? 'failed' : 'cancelled'
    const { usage, cost } = jobUsage(job)
    const reason = job.rootReason ?? undefined
    this.trace.job(job, 'job.end', { status, ...(reason ? { reason } : {}), usage, cost_usd: cost })
    void this.mcp.endJob(job)
    for (const listener of this.jobEndListeners) listener(job.id)
  }

  private checkBudget(job: JobRuntime, agent: AgentRuntime): void {
    const step = budgetStep(job)
    if (step.warning) this.trace.job(job, 'budget.warning', step.warning)
    if (step.exceeded) return this.stopForBudget(job)
    // A job that pauses holds the branch at its next step (BudgetPauses); one that stops stops it.
    const branch = onBudgetOf(job) === 'stop' ? spentBranch(agent) : null
    if (branch) this.stopForBudget(job, subtreePostOrder(branch), 'its branch')
  }

  /**
   * A cap tripped: nothing new starts anywhere in the job (calls and spawns check
   * `overBudget`), queued and held spawns are denied, and every live agent is stopped, its
   * calls in flight aborted; so the overshoot is at most the call each agent had running.
   */
  private stopForBudget(job: JobRuntime, agents: Iterable<AgentRuntime> = job.agents.values(), whose = "the job's"): void {
    const denied = { ok: false as const, error: `spawn denied: ${whose} token or cost budget is spent` }
    for (const agent of agents) {
      if (agent.ended) continue
      if (agent.status === 'held' || agent.status === 'queued') {
        if (agent.parent) agent.parent.waiting = agent.parent.waiting.filter((waiting) => waiting !== agent)
        this.finish(agent, { status: 'cancelled', terminalReason: 'token_budget', result: null, summary: denied.error }, denied)
      } else if (isLive(agent)) {
        this.stop(agent, 'failed', 'token_budget')
      }
    }
  }

  // --- helpers ----------------------------------------------------------------------------

  /**
   * An agent started or stopped waiting for the user, or for what the user or a provider must
   * give (a raised cap, a rate limit's end: waits.ts). That time is not the agent's: its wall
   * clock stops, and so do its ancestors' (each waits for it), until nothing in their subtree
   * waits any more.
   */
  private userWait(agent: AgentRuntime, waiting: boolean): void {
    for (let at: AgentRuntime | null = agent; at; at = at.parent) {
      at.userWaits += waiting ? 1 : -1
      if (waiting && at.userWaits === 1) at.clock?.pause()
      if (!waiting && at.userWaits === 0) at.clock?.resume()
    }
  }

  private jobContext(project: string, settings: JobSettings): JobContext {
    return this.options.jobContext?.(project, settings) ?? { connection: null }
  }

  private isPaused(job: JobRuntime): boolean {
    return job.paused || this.allPaused
  }

  private send(agent: AgentRuntime, message: ToAgent): void {
    this.processes.send(agent, message)
  }
}

function partialSummary(agent: AgentRuntime, reason: TerminalReason): string {
  const partial = agent.lastText ? ` Last output: ${agent.lastText.slice(0, 300)}` : ''
  return `${agent.profile.name} agent ended: ${reason}.${partial}`
}
