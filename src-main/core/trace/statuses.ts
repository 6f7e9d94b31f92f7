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
  'completed',
  'partial',
  'failed',
  'killed',
  'cancelled',
] as const
export const agentStatusSchema = z.enum(agentStatuses)
export type AgentStatus = z.infer<typeof agentStatusSchema>

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
