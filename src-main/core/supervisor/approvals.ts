import type { ToAgent } from '../protocol/messages'
import type { AgentRuntime, JobRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

export type ApprovalDecider = 'user' | 'auto_approve' | 'auto_deny'

export interface PendingApprovalView {
  approval_id: string
  agent_id: string
  tool: string
  command: string
  reason: string
}

/**
 * Risky actions (product.md §4): a subagent's are decided at once by its job's auto-approve
 * flag; the root's wait for the user. Every decision is an event saying who decided.
 */
export class ApprovalDesk {
  constructor(
    private readonly trace: TraceEmitter,
    private readonly send: (agent: AgentRuntime, message: ToAgent) => void,
  ) {}

  request(agent: AgentRuntime, approvalId: string, tool: string, command: string, reason: string): void {
    this.trace.agent(agent, 'approval.request', { approval_id: approvalId, tool, command, reason })
    if (agent.parent) {
      const approved = agent.job.autoApprove
      this.resolve(agent, approvalId, approved ? 'approved' : 'denied', approved ? 'auto_approve' : 'auto_deny')
      return
    }
    agent.status = 'waiting_approval'
    agent.job.approvals.set(approvalId, { approvalId, agent, tool, command, reason })
  }

  /** Decides a root agent's pending approval; false when no job has it pending. */
  decide(jobs: Iterable<JobRuntime>, approvalId: string, decision: 'approved' | 'denied', by: ApprovalDecider): boolean {
    for (const job of jobs) {
      const pending = job.approvals.get(approvalId)
      if (!pending) continue
      job.approvals.delete(approvalId)
      this.resolve(pending.agent, approvalId, decision, by)
      return true
    }
    return false
  }

  pending(job: JobRuntime | undefined): PendingApprovalView[] {
    return [...(job?.approvals.values() ?? [])].map((pending) => ({
      approval_id: pending.approvalId,
      agent_id: pending.agent.id,
      tool: pending.tool,
      command: pending.command,
      reason: pending.reason,
    }))
  }

  /**
   * An agent that ends has nothing left to approve: each of its pending requests is recorded as
   * denied (by the user when they killed it), so the trace never leaves a request open.
   */
  denyAllFor(agent: AgentRuntime, by: ApprovalDecider, reason: string): void {
    for (const [approvalId, pending] of agent.job.approvals) {
      if (pending.agent !== agent) continue
      agent.job.approvals.delete(approvalId)
      this.trace.agent(agent, 'approval.decision', { approval_id: approvalId, decision: 'denied', by, reason })
    }
  }

  private resolve(agent: AgentRuntime, approvalId: string, decision: 'approved' | 'denied', by: ApprovalDecider): void {
    if (agent.status === 'waiting_approval') agent.status = 'running'
    this.trace.agent(agent, 'approval.decision', { approval_id: approvalId, decision, by })
    this.send(agent, { type: 'approval_result', approval_id: approvalId, decision, by })
  }
}
