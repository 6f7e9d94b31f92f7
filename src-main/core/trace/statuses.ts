import { z } from 'zod'

/** The statuses and terminal reasons of trace format version 1 (docs/trace-format.md). */
export const jobStatuses = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const
export const jobStatusSchema = z.enum(jobStatuses)
export type JobStatus = z.infer<typeof jobStatusSchema>

/** Who decides a subagent's risky command: nobody (denied), the user (asked, as the root's), or nobody (approved). */
export const subagentApprovalModes = ['deny', 'ask', 'approve'] as const
export const subagentApprovalsSchema = z.enum(subagentApprovalModes)
export type SubagentApprovals = z.infer<typeof subagentApprovalsSchema>

export const agentStatuses = [
  'held',
  'queued',
  'running',
  'waiting_approval',
  'rate_limited',
  'paused',
  'completed',
  'partial',
  'failed',
  'killed',
  'cancelled',
] as const
export const agentStatusSchema = z.enum(agentStatuses)
export type AgentStatus = z.infer<typeof agentStatusSchema>

/**
 * An agent whose process runs: working, or waiting with its work held where it was (for the
 * user's decision, for a provider's rate limit, for a budget raised). Everything else is a
 * spawn not started yet or an end.
 */
export const isLiveStatus = (status: AgentStatus): boolean =>
  status === 'running' || status === 'waiting_approval' || status === 'rate_limited' || status === 'paused'

/** What a live agent waits for, held by the supervisor at its model call or spawn (`agent.wait`). */
export const waitReasons = ['rate_limit', 'job_budget', 'branch_budget'] as const
export const waitReasonSchema = z.enum(waitReasons)
export type WaitReason = z.infer<typeof waitReasonSchema>

/** How a wait ended: tried again after it, at the user's "Retry now", a cap raised, given up, or the agent ended. */
export const waitOutcomes = ['retried', 'retry_now', 'raised', 'gave_up', 'ended'] as const
export type WaitOutcome = (typeof waitOutcomes)[number]

/** The status an agent waiting for `reason` shows. */
export const waitStatus = (reason: WaitReason): AgentStatus => (reason === 'rate_limit' ? 'rate_limited' : 'paused')

export const terminalReasons = [
  'completed',
  'max_steps',
  'token_budget',
  'empty_response',
  'invalid_result',
  'killed',
  'timeout',
  'provider_error',
  'crashed',
  'cancelled',
] as const
export const terminalReasonSchema = z.enum(terminalReasons)
export type TerminalReason = z.infer<typeof terminalReasonSchema>

/**
 * What a job's end is called. A job whose root the user killed ends `cancelled` in format 1 (its
 * status names stay as they are); its `job.end` says `reason: killed`, and it is called `killed`.
 */
export const jobOutcome = (status: JobStatus, reason?: TerminalReason | null): string =>
  status === 'cancelled' && reason === 'killed' ? 'killed' : status

/** The mode after `mode` in deny → ask → approve → deny (the `A` shortcut). */
export const nextApprovalMode = (mode: SubagentApprovals): SubagentApprovals =>
  subagentApprovalModes[(subagentApprovalModes.indexOf(mode) + 1) % subagentApprovalModes.length]!
