import { z } from 'zod'

/** Every event type of trace format version 1 (docs/trace-format.md). */
export const eventTypes = [
  'job.start',
  'job.end',
  'agent.start',
  'agent.end',
  'message',
  'llm.call',
  'tool.call',
  'tool.result',
  'subagent.request',
  'subagent.held',
  'subagent.queued',
  'subagent.denied',
  'subagent.start',
  'subagent.end',
  'approval.request',
  'approval.decision',
  'control',
  'context.compact',
  'budget.warning',
  'error',
] as const
export const eventTypeSchema = z.enum(eventTypes)
export type EventType = z.infer<typeof eventTypeSchema>

/** An event as stored and exported: one line of the trace JSONL after the header. */
export const traceEventSchema = z.object({
  type: eventTypeSchema,
  seq: z.number().int().positive(),
  ts: z.string(),
  job_id: z.string(),
  agent_id: z.string().nullable(),
  parent_id: z.string().nullable(),
  depth: z.number().int().nonnegative().nullable(),
  data: z.record(z.string(), z.unknown()),
})
export type TraceEvent = z.infer<typeof traceEventSchema>

/** An event before the store gives it a sequence number. */
export type NewTraceEvent = Omit<TraceEvent, 'seq'>

export const jobStatuses = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const
export type JobStatus = (typeof jobStatuses)[number]

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

export const isFinishedStatus = (status: AgentStatus): boolean =>
  status === 'completed' || status === 'partial' || status === 'failed' || status === 'killed' || status === 'cancelled'

/** The `task` tool's result, the only thing of a child that reaches its parent's history. */
export const envelopeSchema = z.object({
  status: agentStatusSchema,
  profile: z.string(),
  agent_id: z.string(),
  summary: z.string(),
  result: z.unknown(),
  terminal_reason: terminalReasonSchema,
  stats: z.object({
    steps: z.number().int(),
    tool_calls: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost_usd: z.number().nullable(),
    model: z.string().nullable(),
    duration_ms: z.number(),
  }),
})
export type Envelope = z.infer<typeof envelopeSchema>
