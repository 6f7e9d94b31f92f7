import type { TaskRequest, ToAgent } from '../protocol/messages'
import { defaultMaxAgents, spawnGuardDefaults } from '../trace/model'
import { childTaskText, renderFirstMessage } from './request'
import { childEventData, runningChildren, type AgentRuntime, type JobRuntime, type newAgentRuntime } from './runtime'
import { decideSpawn } from './spawn-policy'
import type { TraceEmitter } from './trace-emitter'
import { projectDirOf, type AgentWorktrees } from './agent-worktrees'
import { WorktreeRefused, type Worktree } from '../worktrees/worktrees'

export interface SpawnsOptions {
  trace: TraceEmitter
  newId(prefix: string): string
  now(): Date
  /** Adds a granted child to the tree. */
  addAgent(fields: Omit<Parameters<typeof newAgentRuntime>[0], 'now'>): AgentRuntime
  isPaused(job: JobRuntime): boolean
  /** Why a spawn of `parent` is held now because a budget it is under is spent (budget-pauses.ts); null: it is not. */
  budgetHold?(parent: AgentRuntime): string | null
  send(agent: AgentRuntime, message: ToAgent): void
  /** Starts a child that may run now: `agent.start`, then its process. */
  launch(agent: AgentRuntime, firstMessage: string): void
  /** A user can allow a spawn held by a job limit (the app, `arbor serve`); without one it is refused (`arbor run`). */
  userDecides: boolean
  /** A spawn its parent waits for started or stopped waiting for the user (the parent's wall clock stops meanwhile). */
  userWait(agent: AgentRuntime, waiting: boolean): void
  /** Makes the worktrees of children spawned with isolation 'worktree'. */
  worktrees: AgentWorktrees
}

/**
 * `task` calls, from request to start: each is checked against the spawn policy
 * (spawn-policy.ts, product.md §4) and denied, held while spawning is paused, queued behind the
 * parent's running children, or started. Every outcome is a `subagent.*` event on the parent.
 * A spawn past a job limit (max_agents, max_spawns_per_turn) is held until the user allows it
 * (`allow`) or cancels it; resuming spawning leaves it held. Where nobody can decide it is denied.
 * A background spawn (`background: true`) that is granted answers the parent at once with
 * `spawn_started`; its envelope goes to the parent as `background_end` when it ends.
 */
export class Spawns {
  constructor(private readonly options: SpawnsOptions) {}

  request(parent: AgentRuntime, callId: string, request: TaskRequest): void {
    const { trace } = this.options
    const job = parent.job
    const childProfile = job.profiles[request.subagent_type]
    const childId = this.options.newId('agent')
    const spawnData = {
      call_id: callId,
      child_agent_id: childId,
      profile: request.subagent_type,
      description: request.description,
      task: request.prompt,
      ...(request.background ? { background: true as const } : {}),
    }
    trace.agent(parent, 'subagent.request', spawnData)
    const now = Date.now()
    job.spawnTimes = job.spawnTimes.filter((time) => now - time < 60_000)
    const budgetHold = this.options.budgetHold?.(parent) ?? null
    const decision = decideSpawn({
      jobActive: job.active,
      overBudget: job.overBudget,
      parentStopping: parent.stopping !== null,
      parentWrappingUp: parent.wrapUp !== null,
      spawnsThisTurn: parent.spawnsThisTurn,
      maxSpawnsPerTurn: job.settings.max_spawns_per_turn ?? spawnGuardDefaults.max_spawns_per_turn,
      spawnsLastMinute: job.spawnTimes.length,
      maxSpawnsPerMinute: job.settings.max_spawns_per_minute ?? spawnGuardDefaults.max_spawns_per_minute,
      parentProfile: parent.profile,
      parentDepth: parent.depth,
      childProfile,
      requestedProfile: request.subagent_type,
      availableProfiles: Object.keys(job.profiles),
      maxDepth: job.settings.max_depth,
      paused: this.options.isPaused(job) || budgetHold !== null,
      runningChildren: runningChildren(parent),
      maxConcurrentChildren: job.settings.max_concurrent_children,
      agentsInJob: this.spawnedIn(job),
      maxAgents: job.settings.max_agents ?? defaultMaxAgents,
      userDecides: this.options.userDecides,
    })
    parent.spawnsThisTurn += 1
    if (decision.kind === 'deny' || !childProfile) {
      const reason = decision.kind === 'deny' ? decision.reason : 'unknown profile'
      trace.agent(parent, 'subagent.denied', { ...spawnData, reason })
      this.options.send(parent, { type: 'spawn_result', call_id: callId, result: { ok: false, error: `spawn denied: ${reason}` } })
      return
    }
    let worktree: Worktree | null = null
    if ((request.isolation ?? childProfile.isolation) === 'worktree') {
      try {
        worktree = this.options.worktrees.create(parent, childId, request.description)
      } catch (error) {
        // Not a repository (WorktreeRefused), or git failed: the spawn is refused with the reason.
        const reason = error instanceof WorktreeRefused ? error.message : `no worktree: ${(error as Error).message}`
        trace.agent(parent, 'subagent.denied', { ...spawnData, reason })
        this.options.send(parent, { type: 'spawn_result', call_id: callId, result: { ok: false, error: `spawn denied: ${reason}` } })
        return
      }
    }
    job.spawnTimes.push(now)
    const heldBy = decision.kind === 'hold' && decision.limit ? { limit: decision.limit, reason: decision.reason } : null
    if (!heldBy) job.spawned = this.spawnedIn(job) + 1
    const child = this.options.addAgent({
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
    child.worktree = worktree
    if (request.background) {
      // The parent's call returns now, before the child can end: its `background_end` comes after this.
      const status = decision.kind === 'hold' ? 'held' : decision.kind === 'queue' ? 'queued' : 'started'
      this.options.send(parent, { type: 'spawn_started', call_id: callId, agent_id: child.id, status })
    }
    if (decision.kind === 'hold') {
      child.status = 'held'
      child.heldBy = heldBy
      trace.agent(parent, 'subagent.held', {
        ...childEventData(child),
        reason: budgetHold ?? decision.reason,
        ...(heldBy ? { limit: heldBy.limit } : {}),
      })
      if (heldBy && !request.background) this.options.userWait(parent, true)
    } else if (decision.kind === 'queue') {
      this.enqueue(child)
    } else {
      this.launchChild(child)
    }
    this.options.worktrees.created(child)
  }

  /** Spawning resumed: held children start, or queue where their parent has no free slot; those held by a limit stay held. */
  releaseHeld(job: JobRuntime): void {
    for (const agent of job.agents.values()) {
      if (agent.status !== 'held' || agent.ended || !agent.parent || agent.heldBy) continue
      if (this.options.budgetHold?.(agent.parent)) continue
      this.startOrQueue(agent)
    }
  }

  /**
   * The user allows a spawn held by a job limit: it counts as the job's spawn and starts past the
   * limit (or queues behind its parent's running children; held as the others are while spawning
   * is paused). Recorded as a `control` allow_spawn on the child. Refuses any other agent.
   */
  allow(child: AgentRuntime): void {
    if (child.ended || child.status !== 'held' || !child.heldBy) {
      const why = child.status === 'held' ? 'it is held because spawning is paused: resume spawning' : `it is ${child.status}`
      throw new SpawnEditRefused('conflict', `agent ${child.label} is not waiting to be allowed: ${why}`)
    }
    if (!child.job.active) throw new SpawnEditRefused('conflict', `the job of ${child.label} is ending: its spawns will not start`)
    const { limit } = child.heldBy
    this.options.trace.agent(child, 'control', { action: 'allow_spawn', target: child.id, value: limit, by: 'user' })
    this.heldByLimitEnded(child)
    child.job.spawned = this.spawnedIn(child.job) + 1
    if (this.options.isPaused(child.job)) {
      this.options.trace.agent(child.parent ?? child, 'subagent.held', { ...childEventData(child), reason: 'spawning is paused' })
    } else {
      this.startOrQueue(child)
    }
  }

  /** A spawn held by a limit no longer waits for the user (allowed, cancelled, or ended with its job). */
  heldByLimitEnded(child: AgentRuntime): void {
    if (!child.heldBy) return
    child.heldBy = null
    if (child.parent && !child.request?.background) this.options.userWait(child.parent, false)
  }

  /**
   * The user's prompt for a held or queued child, in place of the one its parent wrote. Recorded
   * on the child (a `control` edit_spawn with the old and the new prompt, redacted as the user's
   * words are); the child starts with it, and the parent's later `subagent.*` events carry it.
   * Returns the prompt as recorded; refuses a child that has started or ended.
   */
  edit(child: AgentRuntime, prompt: string): string {
    const request = child.request
    if (!request || child.ended || (child.status !== 'held' && child.status !== 'queued')) {
      throw new SpawnEditRefused('conflict', `agent ${child.label} is ${child.status}: only a held or queued spawn's prompt can be edited`)
    }
    if (!child.job.active) throw new SpawnEditRefused('conflict', `the job of ${child.label} is ending: its spawns will not start`)
    const edited = child.job.redactor.redact(prompt)
    child.request = { ...request, prompt: edited }
    child.task = childTaskText(child.request)
    this.options.trace.agent(child, 'control', {
      action: 'edit_spawn',
      target: child.id,
      value: edited,
      previous: request.prompt,
      by: 'user',
    })
    return edited
  }

  /**
   * A spawn that was held or queued when its job was interrupted, waiting again in the resumed
   * job: held while spawning is paused, else queued behind its parent's running children (the
   * caller pumps the parent once every one is back).
   */
  again(child: AgentRuntime): void {
    if (!child.parent || !child.request) return
    if (!this.options.isPaused(child.job)) return this.enqueue(child)
    child.status = 'held'
    this.options.trace.agent(child.parent, 'subagent.held', { ...childEventData(child), reason: 'spawning is paused' })
  }

  /** Starts queued children of `parent` while slots are free. */
  pump(parent: AgentRuntime): void {
    const job = parent.job
    // A parent wrapping up finishes with the children it has: its queued ones never start; nor do
    // they while a budget it is under is spent (they start once it is raised).
    if (parent.wrapUp || this.options.budgetHold?.(parent)) return
    while (parent.waiting.length > 0 && !this.options.isPaused(job) && job.active) {
      if (runningChildren(parent) >= job.settings.max_concurrent_children) return
      const next = parent.waiting.shift()
      if (next && !next.ended) this.launchChild(next)
    }
  }

  /** Spawns the job granted so far, counted from its agents the first time (a job followed up in this process has some). */
  private spawnedIn(job: JobRuntime): number {
    job.spawned ??= [...job.agents.values()].filter((agent) => agent.parent !== null && !agent.heldBy).length
    return job.spawned
  }

  private startOrQueue(child: AgentRuntime): void {
    if (!child.parent) return
    if (runningChildren(child.parent) < child.job.settings.max_concurrent_children) this.launchChild(child)
    else this.enqueue(child)
  }

  private enqueue(child: AgentRuntime): void {
    const parent = child.parent
    if (!parent || !child.request) return
    child.status = 'queued'
    parent.waiting.push(child)
    this.options.trace.agent(parent, 'subagent.queued', {
      ...childEventData(child),
      reason: `${parent.job.settings.max_concurrent_children} children already running`,
    })
  }

  private launchChild(child: AgentRuntime): void {
    const parent = child.parent
    const request = child.request
    if (!parent || !request) return
    child.status = 'running'
    this.options.launch(child, renderFirstMessage(childTaskText(request), request.context, projectDirOf(child), this.options.now()))
    this.options.trace.agent(parent, 'subagent.start', childEventData(child))
  }
}

/**
 * A spawn's prompt could not be edited, or it could not be allowed: unknown agent (`not_found`),
 * or one that is not held or queued (not held by a limit, to be allowed) (`conflict`).
 */
export class SpawnEditRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
    this.name = 'SpawnEditRefused'
  }
}
