import { randomUUID } from 'node:crypto'
import { builtinProfiles, resolveModel } from '../agent/profiles'
import { describeProfiles } from '../agent/profiles/describe'
import type { LoadedProfiles } from '../agent/profiles/load'
import type { AgentStatus, EventType, TerminalReason } from '../trace/events'
import type { Job, JobSettings } from '../trace/model'
import { addCost, addUsage, emptyUsage, type Usage } from '../trace/usage'
import type { ProcessHost } from './process-host'
import { toSupervisorSchema, type AgentInit, type AgentOutcome, type TaskRequest, type ToAgent, type ToSupervisor } from './protocol'
import { childTaskText, renderFirstMessage } from './request'
import {
  buildEnvelope,
  isLive,
  newAgentRuntime,
  runningChildren,
  subtreePostOrder,
  type AgentRuntime,
  type Ending,
  type JobRuntime,
  type TraceSink,
} from './runtime'
import { decideSpawn } from './spawn-policy'

export interface SupervisorOptions {
  sink: TraceSink
  host: ProcessHost
  now?: () => Date
  newId?: (prefix: string) => string
  /** Time between asking an agent to end and forcing it (product.md §4: 2 s). */
  killGraceMs?: number
}

export interface StartJobOptions {
  project: string
  task: string
  settings: JobSettings
  /** The profiles this job may use (built-ins plus the project's own) and what failed to load; built-ins by default. */
  loadedProfiles?: LoadedProfiles
  autoApprove?: boolean
  spawnPaused?: boolean
}

type ApprovalDecider = 'user' | 'auto_approve' | 'auto_deny'

const defaultNewId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`

/**
 * Owns the delegation tree: turns `task` calls into spawn requests under the policy of
 * product.md §4, runs each agent in its own process through a ProcessHost, and applies the
 * user's controls. Everything it learns or decides is written to the trace as it happens.
 */
export class Supervisor {
  private readonly jobs = new Map<string, JobRuntime>()
  private readonly agents = new Map<string, AgentRuntime>()
  private readonly now: () => Date
  private readonly newId: (prefix: string) => string
  private readonly killGraceMs: number
  private allPaused = false
  private readonly jobEndListeners = new Set<(jobId: string) => void>()

  constructor(private readonly options: SupervisorOptions) {
    this.now = options.now ?? (() => new Date())
    this.newId = options.newId ?? defaultNewId
    this.killGraceMs = options.killGraceMs ?? 2000
  }

  startJob(options: StartJobOptions): string {
    const profiles = options.loadedProfiles?.profiles ?? builtinProfiles
    const rootProfile = profiles[options.settings.profile]
    if (!rootProfile) throw new Error(`unknown profile "${options.settings.profile}"`)
    const job: JobRuntime = {
      id: this.newId('job'),
      project: options.project,
      settings: options.settings,
      profiles,
      autoApprove: options.autoApprove ?? false,
      paused: options.spawnPaused ?? false,
      active: true,
      ended: false,
      overBudget: false,
      budgetWarned: false,
      root: null,
      agents: new Map(),
      approvals: new Map(),
    }
    this.jobs.set(job.id, job)
    const timestamp = this.now().toISOString()
    const stored: Job = {
      id: job.id,
      project: job.project,
      task: options.task,
      settings: options.settings,
      status: 'running',
      created_at: timestamp,
      ended_at: null,
      auto_approve: job.autoApprove,
      spawn_paused: job.paused,
      usage: emptyUsage(),
      cost_usd: null,
    }
    this.options.sink.createJob(stored)
    this.emitJob(job, 'job.start', { task: options.task, settings: options.settings })
    if (job.autoApprove) this.emitJob(job, 'control', { action: 'auto_approve', target: job.id, value: true, by: 'user' })
    if (job.paused) this.emitJob(job, 'control', { action: 'pause', target: job.id, value: true, by: 'user' })
    for (const problem of options.loadedProfiles?.errors ?? []) {
      this.emitJob(job, 'error', { source: 'profiles', file: problem.file, field: problem.field, message: problem.message })
    }
    const root = this.addAgent({ id: this.newId('agent'), job, parent: null, profile: rootProfile, label: 'root', task: options.task, request: null, callId: null, status: 'running' })
    job.root = root
    this.launch(root, renderFirstMessage(options.task, undefined, job.project, this.now()))
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
      this.emitJob(job, 'control', { action: paused ? 'pause' : 'resume', target: jobId ?? 'all', value: paused, by: 'user' })
      if (!paused && 'agents' in job && !this.isPaused(job)) this.releaseHeld(job)
    }
  }

  /** Flips subagent auto-approve; for a job not running in this session only the setting is recorded. */
  setAutoApprove(jobId: string, value: boolean): void {
    const job = this.jobs.get(jobId)
    if (job) job.autoApprove = value
    this.emitJob(job ?? { id: jobId }, 'control', { action: 'auto_approve', target: jobId, value, by: 'user' })
  }

  /** Ends an agent and all its descendants; returns the ids of the agents it stopped. */
  kill(agentId: string): string[] {
    const target = this.agents.get(agentId)
    if (!target || target.ended) return []
    this.emit(target, 'control', { action: 'kill', target: agentId, value: true, by: 'user' })
    const stopped: string[] = []
    for (const agent of subtreePostOrder(target)) {
      if (agent.ended) continue
      stopped.push(agent.id)
      this.stop(agent, 'killed', 'killed')
    }
    return stopped
  }

  /** Cancels a held or queued spawn; the parent's `task` call gets an error. */
  cancelSpawn(agentId: string): boolean {
    const agent = this.agents.get(agentId)
    if (!agent || agent.ended || (agent.status !== 'held' && agent.status !== 'queued')) return false
    this.emit(agent, 'control', { action: 'cancel_spawn', target: agentId, value: true, by: 'user' })
    this.finish(
      agent,
      { status: 'cancelled', terminalReason: 'cancelled', result: null, summary: 'spawn cancelled by the user' },
      { ok: false, error: 'spawn cancelled by the user' },
    )
    return true
  }

  /** Decides a root agent's pending approval: by the user, or `auto_deny` where nobody can be asked. */
  decideApproval(approvalId: string, decision: 'approved' | 'denied', by: 'user' | 'auto_deny' = 'user'): boolean {
    for (const job of this.jobs.values()) {
      const pending = job.approvals.get(approvalId)
      if (!pending) continue
      job.approvals.delete(approvalId)
      this.resolveApproval(pending.agent, approvalId, decision, by)
      return true
    }
    return false
  }

  pendingApprovals(jobId: string): { approval_id: string; agent_id: string; tool: string; command: string; reason: string }[] {
    const job = this.jobs.get(jobId)
    if (!job) return []
    return [...job.approvals.values()].map((pending) => ({
      approval_id: pending.approvalId,
      agent_id: pending.agent.id,
      tool: pending.tool,
      command: pending.command,
      reason: pending.reason,
    }))
  }

  /** Stops every live agent (app or server shutting down) and waits for their processes to exit. */
  async shutdown(): Promise<void> {
    for (const job of this.jobs.values()) {
      if (job.active && job.root) this.kill(job.root.id)
    }
    const exits = [...this.agents.values()].filter((agent) => agent.process).map((agent) => agent.exited)
    await Promise.all(exits)
  }

  // --- spawning -------------------------------------------------------------------------

  private addAgent(fields: Omit<Parameters<typeof newAgentRuntime>[0], 'now'>): AgentRuntime {
    const agent = newAgentRuntime({ ...fields, now: Date.now() })
    fields.job.agents.set(agent.id, agent)
    this.agents.set(agent.id, agent)
    fields.parent?.children.push(agent)
    return agent
  }

  private handleSpawn(parent: AgentRuntime, callId: string, request: TaskRequest): void {
    const job = parent.job
    const childProfile = job.profiles[request.subagent_type]
    const childId = this.newId('agent')
    const spawnData = {
      call_id: callId,
      child_agent_id: childId,
      profile: request.subagent_type,
      description: request.description,
      task: request.prompt,
    }
    this.emit(parent, 'subagent.request', spawnData)
    const decision = decideSpawn({
      jobActive: job.active,
      overBudget: job.overBudget,
      parentProfile: parent.profile,
      parentDepth: parent.depth,
      childProfile,
      requestedProfile: request.subagent_type,
      availableProfiles: Object.keys(job.profiles),
      maxDepth: job.settings.max_depth,
      paused: this.isPaused(job),
      runningChildren: runningChildren(parent),
      maxConcurrentChildren: job.settings.max_concurrent_children,
    })
    if (decision.kind === 'deny' || !childProfile) {
      const reason = decision.kind === 'deny' ? decision.reason : 'unknown profile'
      this.emit(parent, 'subagent.denied', { ...spawnData, reason })
      this.send(parent, { type: 'spawn_result', call_id: callId, result: { ok: false, error: `spawn denied: ${reason}` } })
      return
    }
    const child = this.addAgent({
      id: childId,
      job,
      parent,
      profile: childProfile,
      label: request.description,
      task: childTaskText(request),
      request,
      callId,
      status: 'queued',
    })
    if (decision.kind === 'hold') {
      child.status = 'held'
      this.emit(parent, 'subagent.held', { ...spawnData, reason: 'spawning is paused' })
    } else if (decision.kind === 'queue') {
      this.enqueue(child)
    } else {
      this.launchChild(child)
    }
  }

  private enqueue(child: AgentRuntime): void {
    const parent = child.parent
    if (!parent || !child.request) return
    child.status = 'queued'
    parent.waiting.push(child)
    this.emit(parent, 'subagent.queued', {
      call_id: child.callId,
      child_agent_id: child.id,
      profile: child.profile.name,
      description: child.label,
      task: child.request.prompt,
      reason: `${parent.job.settings.max_concurrent_children} children already running`,
    })
  }

  private releaseHeld(job: JobRuntime): void {
    for (const agent of job.agents.values()) {
      if (agent.status !== 'held' || agent.ended || !agent.parent) continue
      if (runningChildren(agent.parent) < job.settings.max_concurrent_children) this.launchChild(agent)
      else this.enqueue(agent)
    }
  }

  /** Starts queued children of `parent` while slots are free. */
  private pump(parent: AgentRuntime): void {
    const job = parent.job
    while (parent.waiting.length > 0 && !this.isPaused(job) && job.active) {
      if (runningChildren(parent) >= job.settings.max_concurrent_children) return
      const next = parent.waiting.shift()
      if (next && !next.ended) this.launchChild(next)
    }
  }

  private launchChild(child: AgentRuntime): void {
    const parent = child.parent
    const request = child.request
    if (!parent || !request) return
    child.status = 'running'
    this.launch(child, renderFirstMessage(childTaskText(request), request.context, child.job.project, this.now()))
    this.emit(parent, 'subagent.start', {
      call_id: child.callId,
      child_agent_id: child.id,
      profile: child.profile.name,
      description: child.label,
    })
  }

  private launch(agent: AgentRuntime, firstMessage: string): void {
    const job = agent.job
    agent.status = 'running'
    agent.startedAt = Date.now()
    agent.model = this.modelFor(agent)
    this.emit(agent, 'agent.start', {
      profile: agent.profile.name,
      model: agent.model,
      label: agent.label,
      task: agent.task,
      tools: agent.profile.tools,
      max_steps: agent.profile.max_steps,
      context_token_budget: agent.profile.context_token_budget,
      total_token_budget: agent.profile.total_token_budget ?? job.settings.job_token_budget,
    })
    let process
    try {
      process = this.options.host.spawn({ agentId: agent.id })
    } catch (error) {
      this.emit(agent, 'error', { message: `could not start the agent process: ${errorText(error)}` })
      this.finish(agent, { status: 'failed', terminalReason: 'crashed', result: null, summary: 'the agent process could not start' })
      return
    }
    agent.process = process
    const timeoutMs = job.settings.subagent_timeout_ms
    if (timeoutMs && agent.parent) setTimeout(() => this.stop(agent, 'failed', 'timeout'), timeoutMs).unref()
    process.onMessage((raw) => this.onAgentMessage(agent, raw, firstMessage))
    agent.exited = new Promise((resolve) => {
      process.onExit((code, signal) => {
        this.onAgentExit(agent, code, signal)
        resolve()
      })
    })
  }

  private modelFor(agent: AgentRuntime): string {
    return resolveModel(agent.request?.model ?? agent.profile.model, agent.job.settings)
  }

  private providerFor(agent: AgentRuntime): AgentInit['provider'] {
    const settings = agent.job.settings
    const model = agent.model ?? settings.model
    if (settings.provider !== 'scripted') return { kind: settings.provider, model, base_url: settings.base_url ?? null }
    const plan = settings.script
    const script = !plan ? [] : agent.parent ? (plan.children[agent.label] ?? []) : plan.root
    return { kind: 'scripted', model, script }
  }

  // --- messages from agent processes ------------------------------------------------------

  private onAgentMessage(agent: AgentRuntime, raw: unknown, firstMessage: string): void {
    const parsed = toSupervisorSchema.safeParse(raw)
    if (!parsed.success) {
      this.emit(agent, 'error', { message: `invalid message from the agent process: ${parsed.error.issues[0]?.message ?? 'unknown'}` })
      return
    }
    const message: ToSupervisor = parsed.data
    if (agent.ended) return
    switch (message.type) {
      case 'ready':
        this.send(agent, {
          type: 'start',
          init: {
            agent_id: agent.id,
            job_id: agent.job.id,
            depth: agent.depth,
            project_dir: agent.job.project,
            profile: agent.profile,
            first_message: firstMessage,
            spawnable_profiles: agent.profile.can_delegate ? describeProfiles(agent.job.profiles) : undefined,
            provider: this.providerFor(agent),
          },
        })
        return
      case 'event':
        this.onAgentEvent(agent, message.event_type, message.ts, message.data)
        return
      case 'spawn':
        this.handleSpawn(agent, message.call_id, message.request)
        return
      case 'approval':
        this.handleApproval(agent, message.approval_id, message.tool, message.command, message.reason)
        return
      case 'done':
        this.onAgentDone(agent, message.outcome)
        return
    }
  }

  private onAgentEvent(agent: AgentRuntime, type: EventType, ts: string, data: Record<string, unknown>): void {
    if (type === 'llm.call') {
      agent.steps += 1
      agent.usage = addUsage(agent.usage, (data.usage ?? {}) as Partial<Usage>)
      agent.costUsd = addCost(agent.costUsd, data.cost_usd as number | null | undefined)
    } else if (type === 'tool.call' && typeof data.name === 'string') {
      agent.toolCalls += 1
      agent.toolUsage[data.name] = (agent.toolUsage[data.name] ?? 0) + 1
    } else if (type === 'message' && data.role === 'assistant' && typeof data.content === 'string' && data.content) {
      agent.lastText = data.content
    }
    this.emit(agent, type, data, ts)
    if (type === 'llm.call') this.checkBudget(agent.job)
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
    // The process exits by itself after `done`; make sure it does.
    this.scheduleForceKill(agent, this.killGraceMs * 2)
  }

  private onAgentExit(agent: AgentRuntime, code: number | null, signal: string | null): void {
    if (agent.forceKillTimer) clearTimeout(agent.forceKillTimer)
    agent.process = null
    if (agent.ended) return
    if (agent.stopping) {
      const { status, reason } = agent.stopping
      this.finish(agent, { status, terminalReason: reason, result: agent.lastText || null, summary: partialSummary(agent, reason) })
      return
    }
    this.emit(agent, 'error', { message: `agent process exited unexpectedly (code ${code}, signal ${signal})` })
    this.finish(agent, { status: 'failed', terminalReason: 'crashed', result: agent.lastText || null, summary: 'the agent process crashed' })
  }

  private handleApproval(agent: AgentRuntime, approvalId: string, tool: string, command: string, reason: string): void {
    this.emit(agent, 'approval.request', { approval_id: approvalId, tool, command, reason })
    if (agent.parent) {
      const approved = agent.job.autoApprove
      this.resolveApproval(agent, approvalId, approved ? 'approved' : 'denied', approved ? 'auto_approve' : 'auto_deny')
      return
    }
    agent.status = 'waiting_approval'
    agent.job.approvals.set(approvalId, { approvalId, agent, tool, command, reason })
  }

  private resolveApproval(agent: AgentRuntime, approvalId: string, decision: 'approved' | 'denied', by: ApprovalDecider): void {
    if (agent.status === 'waiting_approval') agent.status = 'running'
    this.emit(agent, 'approval.decision', { approval_id: approvalId, decision, by })
    this.send(agent, { type: 'approval_result', approval_id: approvalId, decision, by })
  }

  // --- ending -----------------------------------------------------------------------------

  /** Ends a held/queued agent at once, or asks a running one to end and forces it after the grace time. */
  private stop(agent: AgentRuntime, status: AgentStatus, reason: TerminalReason): void {
    if (agent.ended) return
    if (!agent.process) {
      if (agent.parent) agent.parent.waiting = agent.parent.waiting.filter((waiting) => waiting !== agent)
      this.finish(agent, { status, terminalReason: reason, result: null, summary: partialSummary(agent, reason) })
      return
    }
    agent.stopping = { status, reason }
    agent.process.kill(false)
    this.scheduleForceKill(agent, this.killGraceMs)
  }

  private scheduleForceKill(agent: AgentRuntime, afterMs: number): void {
    if (!agent.process || agent.forceKillTimer) return
    const process = agent.process
    agent.forceKillTimer = setTimeout(() => process.kill(true), afterMs)
    agent.forceKillTimer.unref()
  }

  private finish(agent: AgentRuntime, ending: Ending, parentResult?: { ok: false; error: string }): void {
    if (agent.ended) return
    agent.ended = true
    agent.status = ending.status
    for (const [approvalId, pending] of agent.job.approvals) {
      if (pending.agent === agent) agent.job.approvals.delete(approvalId)
    }
    const now = Date.now()
    const envelope = buildEnvelope(agent, ending, now)
    this.emit(agent, 'agent.end', {
      status: ending.status,
      terminal_reason: ending.terminalReason,
      result: ending.result,
      summary: ending.summary,
      usage: agent.usage,
      cost_usd: agent.costUsd,
      steps: agent.steps,
      tool_usage: agent.toolUsage,
      duration_ms: envelope.stats.duration_ms,
    })
    const parent = agent.parent
    if (parent) {
      this.emit(parent, 'subagent.end', {
        call_id: agent.callId,
        child_agent_id: agent.id,
        profile: agent.profile.name,
        description: agent.label,
        envelope,
      })
      if (!parent.ended && agent.callId) {
        this.send(parent, {
          type: 'spawn_result',
          call_id: agent.callId,
          result: parentResult ?? { ok: true, envelope },
        })
      }
      this.pump(parent)
    }
    const job = agent.job
    if (agent === job.root) {
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
    let usage = emptyUsage()
    let cost: number | null = null
    for (const agent of job.agents.values()) {
      usage = addUsage(usage, agent.usage)
      cost = addCost(cost, agent.costUsd)
    }
    this.emitJob(job, 'job.end', { status, usage, cost_usd: cost })
    for (const listener of this.jobEndListeners) listener(job.id)
  }

  private checkBudget(job: JobRuntime): void {
    const { job_token_budget: tokenBudget, job_cost_budget: costBudget } = job.settings
    if (tokenBudget === null && costBudget === null) return
    let tokens = 0
    let cost = 0
    for (const agent of job.agents.values()) {
      tokens += agent.usage.input_tokens + agent.usage.output_tokens
      cost += agent.costUsd ?? 0
    }
    const share = Math.max(tokenBudget ? tokens / tokenBudget : 0, costBudget ? cost / costBudget : 0)
    if (share >= 0.8 && !job.budgetWarned) {
      job.budgetWarned = true
      this.emitJob(job, 'budget.warning', { tokens, cost_usd: cost, token_budget: tokenBudget, cost_budget: costBudget, share })
    }
    if (share >= 1 && !job.overBudget) {
      job.overBudget = true
      for (const agent of job.agents.values()) {
        if (isLive(agent)) this.stop(agent, 'failed', 'token_budget')
      }
    }
  }

  // --- helpers ----------------------------------------------------------------------------

  private isPaused(job: JobRuntime): boolean {
    return job.paused || this.allPaused
  }

  private send(agent: AgentRuntime, message: ToAgent): void {
    agent.process?.send(message)
  }

  private emit(agent: AgentRuntime, type: EventType, data: Record<string, unknown>, ts?: string): void {
    this.options.sink.append({
      type,
      ts: ts ?? this.now().toISOString(),
      job_id: agent.job.id,
      agent_id: agent.id,
      parent_id: agent.parent?.id ?? null,
      depth: agent.depth,
      data,
    })
  }

  private emitJob(job: Pick<JobRuntime, 'id'>, type: EventType, data: Record<string, unknown>): void {
    this.options.sink.append({
      type,
      ts: this.now().toISOString(),
      job_id: job.id,
      agent_id: null,
      parent_id: null,
      depth: null,
      data,
    })
  }
}

function partialSummary(agent: AgentRuntime, reason: TerminalReason): string {
  const partial = agent.lastText ? ` Last output: ${agent.lastText.slice(0, 300)}` : ''
  return `${agent.profile.name} agent ended: ${reason}.${partial}`
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))
