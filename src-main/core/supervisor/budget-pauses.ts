import type { HistoryDelta } from '../protocol/model-history'
import { branchSpend, budgetGate, capsRefusal, jobCaps, jobLeft, jobSpend, type BudgetCaps, type BudgetGate } from './budget'
import type { AgentRuntime, JobRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/** The part of the supervisor's AgentWaits (waits.ts) a budget wait uses. */
export interface BudgetWaits {
  start(agent: AgentRuntime, reason: BudgetGate['reason'], options: { message: string; until: null }): void
  end(agent: AgentRuntime, outcome: 'raised' | 'ended'): void
  reasonOf(agent: AgentRuntime): string | null
}

export interface BudgetPausesOptions {
  trace: TraceEmitter
  waits: BudgetWaits
  /** Makes a held model call now, as it was asked for (ModelCalls.start). */
  replayCall(agent: AgentRuntime, callId: string, call: HistoryDelta): void
  /** Starts the job's held spawns that may start now (Spawns.releaseHeld skips those still under a spent cap). */
  releaseSpawns(job: JobRuntime): void
}

/** A cap agents wait at: the job's (`agentId` null) or the branch under an agent. */
export interface SpentCap {
  agentId: string | null
  label: string
  message: string
  caps: BudgetCaps
  spend: { tokens: number; cost: number }
}

/** New caps for a job or a branch: a key left out keeps its cap, null takes the cap away. */
export type CapsChange = Partial<BudgetCaps>

/**
 * Budgets that pause (on_budget `pause`, the app's default): once the job's cap, or the cap of an
 * agent's branch (its subtree), is spent, each agent under it waits at its next step boundary:
 * its `model_call` is held here (and its `task` spawns are held as ghosts, spawns.ts) with
 * status `paused` and `agent.wait {reason: job_budget | branch_budget}`. Calls already in flight
 * finish and count, so the overshoot is at most the calls in flight. Nothing is killed.
 * Raising the cap (`setJob`, `setBranch`, recorded as a `control` set_budget) replays every held
 * call that may go on now (wait end `raised`). A wrap-up or a kill ends the wait too.
 */
export class BudgetPauses {
  /** The model call each paused agent asked for, waiting for a raise. */
  private readonly held = new Map<AgentRuntime, { callId: string; call: HistoryDelta }>()

  constructor(private readonly options: BudgetPausesOptions) {}

  /** True when the call is held (the agent waits for a raise); false when it may start now. */
  holdCall(agent: AgentRuntime, callId: string, call: HistoryDelta): boolean {
    const gate = budgetGate(agent)
    if (!gate) return false
    this.held.set(agent, { callId, call })
    this.startWait(agent, gate)
    return true
  }

  /** Why a spawn `parent` asks for now is held (the cap it is under is spent); null when it is not. */
  spawnHold(parent: AgentRuntime): string | null {
    const gate = budgetGate(parent)
    return gate ? `${gate.message.replace(/: raise it to go on$/, '')}: it starts once the budget is raised` : null
  }

  /** The caps agents of `job` wait at now: the job's, and each spent branch's, once each. */
  spentCaps(job: JobRuntime): SpentCap[] {
    const caps = new Map<string, SpentCap>()
    for (const agent of this.held.keys()) {
      if (agent.job !== job) continue
      const gate = budgetGate(agent)
      if (!gate) continue
      if (gate.branch?.branchBudget) {
        const { branch } = gate
        caps.set(branch.id, {
          agentId: branch.id,
          label: branch.label,
          message: gate.message,
          caps: branch.branchBudget!,
          spend: branchSpend(branch),
        })
      } else if (!gate.branch) {
        caps.set(job.id, { agentId: null, label: 'the job', message: gate.message, caps: jobCaps(job), spend: jobSpend(job) })
      }
    }
    return [...caps.values()]
  }

  /** The agent ended or is being stopped: its held call is dropped (its wait ends with it). */
  drop(agent: AgentRuntime): void {
    this.held.delete(agent)
  }

  /**
   * The agent's process exited under it (a crash): the call it held was the dead process's, so
   * it is dropped, and the wait ends; a restarted process asks again, and waits again if it must.
   */
  processExited(agent: AgentRuntime): void {
    if (!this.held.delete(agent)) return
    if (this.options.waits.reasonOf(agent) === 'job_budget' || this.options.waits.reasonOf(agent) === 'branch_budget') {
      this.options.waits.end(agent, 'ended')
    }
  }

  /** Agents told to wrap up go on with their held call: they finish with what they have, over the cap. */
  releaseWrappingUp(): void {
    for (const agent of [...this.held.keys()]) if (agent.wrapUp) this.release(agent, 'ended')
  }

  /** The job's caps, as the user sets them; refuses (BudgetRefused) a cap not above what is spent. */
  setJob(job: JobRuntime, change: CapsChange): BudgetCaps {
    const previous = jobCaps(job)
    const caps = { ...previous, ...change }
    const refusal = capsRefusal(jobSpend(job), caps)
    if (refusal) throw new BudgetRefused('conflict', refusal)
    job.settings = { ...job.settings, job_token_budget: caps.tokens, job_cost_budget: caps.cost_usd }
    // A raise that puts the job back under 80 % of its caps warns again at 80 % of the new ones.
    job.budgetWarned = jobSpend(job).share >= 0.8
    this.options.trace.job(job, 'control', { action: 'set_budget', target: job.id, value: caps, previous, by: 'user' })
    this.recheck(job)
    return caps
  }

  /**
   * The caps of `agent`'s branch, as the user sets them: refused (BudgetRefused) when not above
   * what the branch has spent, or when the branch could spend more than the job has left.
   */
  setBranch(agent: AgentRuntime, change: CapsChange): BudgetCaps {
    if (agent.ended) throw new BudgetRefused('conflict', `agent ${agent.label} has ended (${agent.status}): its branch spends nothing more`)
    const previous = agent.branchBudget
    const caps = { tokens: null, cost_usd: null, ...previous, ...change }
    const refusal = capsRefusal(branchSpend(agent), caps, jobLeft(agent.job))
    if (refusal) throw new BudgetRefused('conflict', refusal)
    agent.branchBudget = caps.tokens === null && caps.cost_usd === null ? null : caps
    this.options.trace.agent(agent, 'control', { action: 'set_budget', target: agent.id, value: caps, previous, by: 'user' })
    this.recheck(agent.job)
    return caps
  }

  /**
   * The token cap a parent gave its new child in `task` (`budget_tokens`), clamped to what the
   * job has left (a model cannot raise the job's budget); recorded on the child as it starts.
   */
  setByParent(child: AgentRuntime, tokens: number): void {
    const left = jobLeft(child.job).tokens
    const clamped = left === null ? tokens : Math.max(1, Math.min(tokens, left))
    child.branchBudget = { tokens: clamped, cost_usd: null }
    this.options.trace.agent(child, 'control', {
      action: 'set_budget',
      target: child.id,
      value: child.branchBudget,
      previous: null,
      ...(clamped !== tokens ? { requested: { tokens, cost_usd: null } } : {}),
      by: 'parent',
    })
  }

  /** After a raise: every held agent of the job that may go on does; one still under a spent cap waits for that one. */
  private recheck(job: JobRuntime): void {
    for (const agent of [...this.held.keys()]) {
      if (agent.job !== job) continue
      const gate = budgetGate(agent)
      if (!gate) this.release(agent, 'raised')
      else if (gate.reason !== this.options.waits.reasonOf(agent)) {
        this.options.waits.end(agent, 'raised')
        this.startWait(agent, gate)
      }
    }
    this.options.releaseSpawns(job)
  }

  private release(agent: AgentRuntime, outcome: 'raised' | 'ended'): void {
    const hold = this.held.get(agent)
    if (!hold) return
    this.held.delete(agent)
    this.options.waits.end(agent, outcome)
    this.options.replayCall(agent, hold.callId, hold.call)
  }

  private startWait(agent: AgentRuntime, gate: BudgetGate): void {
    if (this.options.waits.reasonOf(agent) === gate.reason) return
    this.options.waits.start(agent, gate.reason, { message: gate.message, until: null })
  }
}

/** New caps could not be set: no such job or agent here (`not_found`), or caps that cannot hold (`conflict`). */
export class BudgetRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
    this.name = 'BudgetRefused'
  }
}
