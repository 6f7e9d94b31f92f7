import { z } from 'zod'
import { envelopeDataSchema, eventDataSchemas, jobSettingsSchema } from './event-data'
import { jobStatusSchema, type AgentStatus } from './statuses'

/** Every event type of trace format version 1 (docs/trace-format.md). */
export const eventTypes = [
  'job.start',
  'job.end',
  'agent.start',
  'agent.end',
  'agent.resume',
  'agent.restart',
  'agent.health',
  'agent.wrap_up',
  'agent.wait',
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
  'file.change',
  'error',
  'worktree',
] as const
export const eventTypeSchema = z.enum(eventTypes)
export type EventType = z.infer<typeof eventTypeSchema>

const envelope = {
  seq: z.number().int().positive().meta({ description: 'store order; strictly increasing within a file' }),
  ts: z.string().meta({ format: 'date-time' }),
  job_id: z.string(),
  agent_id: z.string().nullable().meta({ description: 'the agent the event belongs to; null for job-level events' }),
  parent_id: z.string().nullable().meta({ description: "that agent's parent; null for the root and for job-level events" }),
  depth: z.number().int().nonnegative().nullable().meta({ description: "that agent's depth (root 0); null for job-level events" }),
}

const eventSchema = <T extends EventType>(type: T) =>
  z.strictObject({ type: z.literal(type), ...envelope, data: eventDataSchemas[type] }).meta({ id: `event.${type}` })

/**
 * An event as stored and exported: one line of the trace JSONL after the header. A union on
 * `type`, so narrowing on the type types the data (`EventOf<'llm.call'>['data'].usage`).
 */
export const traceEventSchema = z.discriminatedUnion('type', [
  eventSchema('job.start'),
  eventSchema('job.end'),
  eventSchema('agent.start'),
  eventSchema('agent.end'),
  eventSchema('agent.resume'),
  eventSchema('agent.restart'),
  eventSchema('agent.health'),
  eventSchema('agent.wrap_up'),
  eventSchema('agent.wait'),
  eventSchema('message'),
  eventSchema('llm.call'),
  eventSchema('tool.call'),
  eventSchema('tool.result'),
  eventSchema('subagent.request'),
  eventSchema('subagent.held'),
  eventSchema('subagent.queued'),
  eventSchema('subagent.denied'),
  eventSchema('subagent.start'),
  eventSchema('subagent.end'),
  eventSchema('approval.request'),
  eventSchema('approval.decision'),
  eventSchema('control'),
  eventSchema('context.compact'),
  eventSchema('budget.warning'),
  eventSchema('file.change'),
  eventSchema('error'),
  eventSchema('worktree'),
])
export type TraceEvent = z.infer<typeof traceEventSchema>
export type EventOf<T extends EventType> = Extract<TraceEvent, { type: T }>
export type EventData<T extends EventType> = EventOf<T>['data']

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** An event before the store gives it a sequence number. */
export type NewTraceEvent = DistributiveOmit<TraceEvent, 'seq'>
/** Where and when an event happened: every key but its type, data and sequence number. */
export type EventPlace = Pick<TraceEvent, 'ts' | 'job_id' | 'agent_id' | 'parent_id' | 'depth'>

/**
 * An event of one type with its data. TypeScript cannot follow a generic `type` into the union,
 * so this is the one place a type and its data are joined by assertion; `data` is typed for `type`.
 */
export function newEvent<T extends EventType>(type: T, place: EventPlace, data: EventData<T>): NewTraceEvent {
  const { ts, job_id, agent_id, parent_id, depth } = place
  return { type, ts, job_id, agent_id, parent_id, depth, data } as NewTraceEvent
}

/** Line 1 of a trace file: the job as it was exported. */
export const traceHeaderSchema = z
  .strictObject({
    type: z.literal('trace.header'),
    format: z.literal('arbor-trace'),
    version: z.literal(1),
    job: z.strictObject({
      id: z.string().min(1),
      project: z.string().meta({ description: 'absolute path of the project folder' }),
      task: z.string(),
      settings: jobSettingsSchema,
      status: jobStatusSchema,
      created_at: z.string().meta({ format: 'date-time' }),
    }),
    exported_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'header' })

export * from './statuses'

export const isFinishedStatus = (status: AgentStatus): boolean =>
  status === 'completed' || status === 'partial' || status === 'failed' || status === 'killed' || status === 'cancelled'

/** The `task` tool's result, the only thing of a child that reaches its parent's history. */
export const envelopeSchema = envelopeDataSchema
export type Envelope = z.infer<typeof envelopeSchema>
