import { builtinProfiles } from '../job/profiles'
import type { LoadedProfiles } from '../job/profiles/load'
import type { ToAgent } from '../protocol/messages'
import { HistoryReceiver } from '../protocol/model-history'
import { rebuildHistory, type ResumeHistory } from '../protocol/resume-history'
import { defaultRestartCrashed } from '../trace/model'
import { jobSpend } from './budget'
import { rehydrateJob, type Continuation, type ResumeSource } from './rehydrate'
import { childEventData, isBackground, jobRedactor, runningChildren, type AgentRuntime, type JobRuntime } from './runtime'

export interface FollowUpOptions {
  jobId: string
  /** The agent to continue; the root by default. */
  agentId?: string
  text: string
  /** The profiles the job may use, for a job not run in this process; built-ins by default. */
  loadedProfiles?: LoadedProfiles
  /** New caps for the whole job, when the user raised them to go on. */
  budgets?: { job_token_budget?: number | null; job_cost_budget?: number | null }
}

/** What FollowUps needs of the supervisor besides what every continuation does: how it talks to agents. */
export interface FollowUpsOptions extends Continuation {
  isPaused(job: JobRuntime): boolean
  send(agent: AgentRuntime, message: ToAgent): void
  /** Closes what a crashed process left waiting: its approval requests and the user's undelivered messages. */
  dropPending(agent: AgentRuntime, reason: string): void
}

/**
 * Agents that ended, continued: by the user (a follow-up to the root, or to any finished child)
 * or by a parent (`task` with `resume`). Each goes on in a new process from its history as the
 * trace holds it (protocol/resume-history.ts), in the same job and tree, its totals carried on;
 * `agent.resume` marks the run, and a job that had ended runs, and ends, again. A job of another
 * session is read back from the trace first (rehydrate.ts), and this process takes it over.
 */
export class FollowUps {
  /** Agents waiting to start again: their last process is still exiting. */
  private readonly resuming = new Set<string>()

  constructor(private readonly options: FollowUpsOptions) {}

  /**
   * The user's follow-up. A child whose parent still runs sends its new envelope to the parent as
   * a message (`child_result`). Refused (FollowUpRefused) for an agent that has not ended, a job
   * over its budget, or a trace that cannot be rebuilt.
   */
  async followUp(options: FollowUpOptions): Promise<{ agent_id: string }> {
    const { source } = this.options
    if (!source) throw new FollowUpRefused('conflict', 'this supervisor keeps no trace to continue an agent from')
    const job = this.options.jobs.get(options.jobId) ?? this.rehydrate(source, options.jobId, options.loadedProfiles)
    const agent = options.agentId === undefined ? job.root : job.agents.get(options.agentId)
    if (!agent) throw new FollowUpRefused('not_found', `no agent ${options.agentId ?? '(root)'} in job ${job.id}`)
    if (!agent.ended || this.resuming.has(agent.id)) {
      const status = agent.ended ? 'being continued' : agent.status
      throw new FollowUpRefused('conflict', `${agent.label} is ${status}: send a running agent a message instead`)
    }
    const history = rebuildHistory(source.agentEvents(agent.id))
    if ('error' in history) throw new FollowUpRefused('conflict', `${agent.label} cannot be continued: ${history.error}`)
    const settings = { ...job.settings, ...options.budgets }
    if (jobSpend({ ...job, settings }).share >= 1) {
      throw new FollowUpRefused('conflict', "the job's token or cost budget is spent: raise it to go on")
    }
    job.settings = settings
    job.overBudget = false
    job.budgetWarned = jobSpend(job).share >= 0.8
    const text = job.redactor.redact(options.text)
    await this.lastRunExited(agent)
    // No call of a parent that still runs waits for it: its next envelope reaches the parent as a message.
    agent.reportsToParent = agent.parent !== null && !agent.parent.ended
    agent.callId = agent.reportsToParent ? null : agent.callId
    this.resume(agent, text, history, { by: 'user', ...(options.budgets ? { budgets: options.budgets } : {}) })
    return { agent_id: agent.id }
  }

  /**
   * A parent's `task` with `resume`: its own finished child goes on from its history with the
   * new prompt, and its next envelope answers this call. Anything else is refused to the parent,
   * naming why: the model gave an id from an envelope, and may have got it wrong.
   */
  async resumeChild(parent: AgentRuntime, callId: string, childId: string, prompt: string): Promise<void> {
    const refuse = (error: string): void =>
      this.options.send(parent, { type: 'spawn_result', call_id: callId, result: { ok: false, error } })
    const child = this.options.agents.get(childId)
    const job = parent.job
    if (!child || child.job !== job || child.parent !== parent) return refuse(`${childId} is not a subagent of yours`)
    if (!child.ended || this.resuming.has(child.id)) {
      const status = child.ended ? 'being resumed' : child.status
      return refuse(`${child.label} (${childId}) is ${status}: only a finished subagent can be resumed`)
    }
    if (!job.active || job.overBudget || parent.stopping) return refuse('the job is ending or its budget is spent: nothing new starts')
    if (this.options.isPaused(job)) return refuse('spawning is paused: no subagent starts or resumes until the user resumes it')
    if (runningChildren(parent) >= job.settings.max_concurrent_children) {
      return refuse(`${job.settings.max_concurrent_children} subagents already run: wait for one to finish, then resume ${child.label}`)
    }
    const history = rebuildHistory(this.options.source?.agentEvents(child.id) ?? [])
    if ('error' in history) return refuse(`${child.label} cannot be resumed: ${history.error}`)
    await this.lastRunExited(child)
    if (parent.ended || parent.stopping) return
    // This call waits for its envelope now, a background child's too.
    child.callId = callId
    child.reportsToParent = false
    if (child.request?.background) child.request = { ...child.request, background: false }
    const text = job.redactor.redact(prompt)
    this.options.trace.agent(parent, 'subagent.start', { ...childEventData(child), task: text, resumed: true })
    this.resume(child, text, history, { by: 'parent', call_id: callId })
  }

  /**
   * An agent whose process crashed (SIGKILL, out of memory, a bug) goes on in a new process from
   * its history as the trace holds it, up to the job's `restart_crashed` times (default once): a
   * model call it was making is made again (the history is what that call was sent), and a tool
   * call it was running is answered "interrupted by a crash; its effects are unknown". A child its
   * `task` call waited for still runs: its envelope reaches the new process as a message. False
   * when it is not restarted (none left, no trace, the job ending): it crashed, as before.
   */
  restartCrashed(
    agent: AgentRuntime,
    exit: { code: number | null; signal: string | null },
    cause: 'crashed' | 'user' = 'crashed',
  ): boolean {
    const job = agent.job
    const allowed = job.settings.restart_crashed ?? defaultRestartCrashed
    const { source } = this.options
    // A restart the user asked for (an unresponsive agent's Restart) does not use up restart_crashed.
    const byUser = cause === 'user'
    if (!source || (!byUser && agent.restarts >= allowed) || !job.active || job.overBudget) return false
    const waitedFor = new Map<string, AgentRuntime>()
    for (const child of agent.children) {
      if (!child.ended && child.callId) waitedFor.set(child.callId, child)
    }
    const history = rebuildHistory(source.agentEvents(agent.id), (callId) => {
      const child = waitedFor.get(callId)
      return child
        ? `[interrupted by a crash of your process: the subagent ${child.label} (${child.id}) still runs in the background; await_tasks waits for its result envelope, which also reaches you as a message when it ends. Do not start it again.]`
        : crashedToolResult
    })
    if ('error' in history) {
      this.options.trace.agent(agent, 'error', { message: `the agent cannot be restarted after its crash: ${history.error}` })
      return false
    }
    // No call of the new process waits for them: they are its background children now, and what
    // they return arrives as a message.
    const running = agent.children.filter((child) => !child.ended && (child.callId !== null || isBackground(child)))
    for (const child of running) {
      child.reportsToParent = true
      child.callId = null
    }
    this.options.dropPending(agent, 'the agent process crashed')
    if (byUser) agent.userRestarts += 1
    else agent.restarts += 1
    this.options.trace.agent(agent, 'agent.restart', {
      cause,
      code: exit.code,
      signal: exit.signal,
      from_step: agent.steps,
      restart: byUser ? agent.userRestarts : agent.restarts,
      restarts_allowed: allowed,
    })
    Object.assign(agent, {
      calls: new Map(),
      history: new HistoryReceiver(),
      groups: new Set(),
      spawnsThisTurn: 0,
    } satisfies Partial<AgentRuntime>)
    this.options.launch(agent, '', {
      history: history.messages,
      closing: history.closing,
      restart: true,
      ...(running.length > 0 ? { running_children: running.map((child) => ({ agent_id: child.id, description: child.label })) } : {}),
    })
    return true
  }

  /** Its last run's process may not have exited yet: its exit must not be taken for the new run's. */
  private async lastRunExited(agent: AgentRuntime): Promise<void> {
    this.resuming.add(agent.id)
    try {
      await agent.exited
    } finally {
      this.resuming.delete(agent.id)
    }
  }

  /** A stored job read back to continue it here; this process owns it from now on. */
  private rehydrate(source: ResumeSource, jobId: string, loadedProfiles: LoadedProfiles | undefined): JobRuntime {
    const stored = source.storedJob(jobId)
    if (!stored) throw new FollowUpRefused('not_found', `no job ${jobId}`)
    if (stored.job.status === 'running') throw new FollowUpRefused('conflict', `job ${jobId} is running in another Arbor process`)
    const context = this.options.jobContext(stored.job.project, stored.job.settings)
    const job = rehydrateJob(stored, {
      context,
      redactor: jobRedactor(context, this.options.env),
      profiles: loadedProfiles?.profiles ?? builtinProfiles,
      ...(loadedProfiles?.mcpServers ? { mcpServers: loadedProfiles.mcpServers } : {}),
    })
    this.options.jobs.set(job.id, job)
    for (const agent of job.agents.values()) this.options.agents.set(agent.id, agent)
    return job
  }

  /**
   * Runs an ended agent again from its rebuilt history and a new message, in a new process. The
   * job opens again if it had ended; `agent.resume` (not a second agent.start) marks the run.
   */
  private resume(
    agent: AgentRuntime,
    text: string,
    history: ResumeHistory,
    data: { by: 'user' | 'parent'; call_id?: string; budgets?: FollowUpOptions['budgets'] },
  ): void {
    const job = agent.job
    if (job.ended) {
      job.ended = false
      this.options.sink.reopenJob?.(job.id)
    }
    if (agent === job.root) job.rootReason = null
    job.active = true
    const previous = agent.status
    Object.assign(agent, {
      ended: false,
      stopping: null,
      lastText: '',
      calls: new Map(),
      history: new HistoryReceiver(),
      groups: new Set(),
      spawnsThisTurn: 0,
      userWaits: 0,
      waiting: [],
      // A run that was wrapped up is over: the new one has its own steps.
      wrapUp: null,
    } satisfies Partial<AgentRuntime>)
    this.options.trace.agent(agent, 'agent.resume', {
      ...data,
      text,
      history_messages: history.messages.length,
      previous_status: previous,
      label: agent.label,
    })
    this.options.launch(agent, text, { history: history.messages, closing: history.closing })
  }
}

/** What a tool call the crash cut short is answered with: nobody knows how far it got. */
export const crashedToolResult = '[interrupted by a crash of the agent process; its effects are unknown: check before relying on them]'

/** A follow-up that cannot be made: no such job or agent (`not_found`), or one that cannot go on now (`conflict`). */
export class FollowUpRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
    this.name = 'FollowUpRefused'
  }
}
