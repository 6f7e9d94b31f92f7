import type { ToAgent } from '../protocol/messages'
import type { SubagentApprovals } from '../trace/statuses'
import type { AgentRuntime, JobRuntime, PendingApproval } from './runtime'
import type { TraceEmitter } from './trace-emitter'

export type ApprovalDecider = 'user' | 'auto_approve' | 'auto_deny'

/** What a decision covers: this request only, or the same command from any agent of the job from now on. */
export type ApprovalScope = 'once' | 'job'

export interface PendingApprovalView {
  approval_id: string
  agent_id: string
  /** The labels from the root down to the agent: `root › explore-2`. */
  path: string[]
  label: string
  profile: string
  tool: string
  command: string
  reason: string
  /** The command runs in the OS sandbox (false: the job runs without it). */
  sandboxed: boolean
}

export interface DecisionOptions {
  scope?: ApprovalScope
  /** Said to the agent with a denial. */
  message?: string
}

/**
 * Risky actions (product.md §4). The root's wait for the user. A subagent's follow its job's
 * mode: denied or approved at once, or, in `ask` mode, waiting for the user as the root's do.
 * A command the user approved for the job runs again without asking, from any agent. Every
 * decision is an event saying who decided; `onWaiting` hears each request start and stop
 * waiting for the user (wall clocks do not run meanwhile).
 */
export class ApprovalDesk {
  constructor(
    private readonly trace: TraceEmitter,
    private readonly send: (agent: AgentRuntime, message: ToAgent) => void,
    private readonly onWaiting: (agent: AgentRuntime, waiting: boolean) => void = () => {},
  ) {}

  request(agent: AgentRuntime, approvalId: string, tool: string, command: string, reason: string): void {
    const job = agent.job
    this.trace.agent(agent, 'approval.request', {
      approval_id: approvalId,
      tool,
      command,
      reason,
      path: pathOf(agent),
      sandboxed: job.settings.no_sandbox !== true,
    })
    if (job.approvedCommands.has(command)) {
      this.resolve(agent, approvalId, 'approved', 'auto_approve', { scope: 'job' })
      return
    }
    const mode: SubagentApprovals | null = agent.parent ? job.subagentApprovals : null
    if (mode === 'approve' || mode === 'deny') {
      this.resolve(agent, approvalId, mode === 'approve' ? 'approved' : 'denied', mode === 'approve' ? 'auto_approve' : 'auto_deny')
      return
    }
    agent.status = 'waiting_approval'
    job.approvals.set(approvalId, { approvalId, agent, tool, command, reason })
    this.onWaiting(agent, true)
  }

  /** Decides a pending approval; false when no job has it pending. */
  decide(
    jobs: Iterable<JobRuntime>,
    approvalId: string,
    decision: 'approved' | 'denied',
    by: ApprovalDecider,
    options: DecisionOptions = {},
  ): boolean {
    for (const job of jobs) {
      const pending = job.approvals.get(approvalId)
      if (!pending) continue
      this.take(pending)
      const scope = decision === 'approved' ? (options.scope ?? 'once') : 'once'
      this.resolve(pending.agent, approvalId, decision, by, { scope, message: decision === 'denied' ? options.message : undefined })
      if (scope === 'job') this.approveForJob(job, pending.command)
      return true
    }
    return false
  }

  /** The job's mode changed: its subagents' waiting requests are decided by the new mode (ask leaves them waiting). */
  applyMode(job: JobRuntime): void {
    const mode = job.subagentApprovals
    if (mode === 'ask') return
    for (const pending of [...job.approvals.values()]) {
      if (!pending.agent.parent) continue
      this.take(pending)
      this.resolve(
        pending.agent,
        pending.approvalId,
        mode === 'approve' ? 'approved' : 'denied',
        mode === 'approve' ? 'auto_approve' : 'auto_deny',
      )
    }
  }

  /** Forgets a command approved for the job; true when it was. The next one asks again. */
  revokeForJob(job: JobRuntime, command: string): boolean {
    return job.approvedCommands.delete(command)
  }

  pending(job: JobRuntime | undefined): PendingApprovalView[] {
    return [...(job?.approvals.values() ?? [])].map(view)
  }

  /**
   * An agent that ends has nothing left to approve: each of its pending requests is recorded as
   * denied (by the user when they killed it), so the trace never leaves a request open.
   */
  denyAllFor(agent: AgentRuntime, by: ApprovalDecider, reason: string): void {
    for (const [approvalId, pending] of agent.job.approvals) {
      if (pending.agent !== agent) continue
      this.take(pending)
      this.trace.agent(agent, 'approval.decision', { approval_id: approvalId, decision: 'denied', by, reason })
    }
  }

  /** The command is approved for the job: requests for it waiting now are approved too. */
  private approveForJob(job: JobRuntime, command: string): void {
    job.approvedCommands.add(command)
    for (const pending of [...job.approvals.values()]) {
      if (pending.command !== command) continue
      this.take(pending)
      this.resolve(pending.agent, pending.approvalId, 'approved', 'auto_approve', { scope: 'job' })
    }
  }

  /** A request stops waiting (decided, or its agent ended): one `onWaiting(false)` for each `onWaiting(true)`. */
  private take(pending: PendingApproval): void {
    pending.agent.job.approvals.delete(pending.approvalId)
    this.onWaiting(pending.agent, false)
  }

  private resolve(
    agent: AgentRuntime,
    approvalId: string,
    decision: 'approved' | 'denied',
    by: ApprovalDecider,
    options: DecisionOptions = {},
  ): void {
    // Still waiting when another of its requests is pending (an agent asks one at a time; a stale one is possible).
    const othersPending = [...agent.job.approvals.values()].some((pending) => pending.agent === agent)
    if (agent.status === 'waiting_approval' && !othersPending) agent.status = 'running'
    const extra = { ...(options.scope ? { scope: options.scope } : {}), ...(options.message ? { message: options.message } : {}) }
    this.trace.agent(agent, 'approval.decision', { approval_id: approvalId, decision, by, ...extra })
    this.send(agent, {
      type: 'approval_result',
      approval_id: approvalId,
      decision,
      by,
      ...(options.message ? { message: options.message } : {}),
    })
  }
}

/** The labels from the root down to the agent. */
export function pathOf(agent: AgentRuntime): string[] {
  const labels: string[] = []
  for (let at: AgentRuntime | null = agent; at; at = at.parent) labels.unshift(at.label)
  return labels
}

const view = (pending: PendingApproval): PendingApprovalView => ({
  approval_id: pending.approvalId,
  agent_id: pending.agent.id,
  path: pathOf(pending.agent),
  label: pending.agent.label,
  profile: pending.agent.profile.name,
  tool: pending.tool,
  command: pending.command,
  reason: pending.reason,
  sandboxed: pending.agent.job.settings.no_sandbox !== true,
})
