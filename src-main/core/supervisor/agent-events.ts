import { z } from 'zod'
import { eventDataSchemas } from '../trace/event-data'
import type { EventType } from '../trace/events'

/**
 * The events an agent process may send: what happens inside its loop. Everything else (job.*,
 * agent.*, llm.call, subagent.*, approval.*, control, budget.*) is the supervisor's to record, so
 * an agent cannot forge a decision, a spawn, an ending or the usage it is billed for.
 */
export const agentEventTypes: ReadonlySet<EventType> = new Set<EventType>([
  'message',
  'tool.call',
  'tool.result',
  'context.compact',
  'error',
  'file.change',
])

const agentEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), data: eventDataSchemas.message }),
  z.object({ type: z.literal('tool.call'), data: eventDataSchemas['tool.call'] }),
  z.object({ type: z.literal('tool.result'), data: eventDataSchemas['tool.result'] }),
  z.object({ type: z.literal('context.compact'), data: eventDataSchemas['context.compact'] }),
  z.object({ type: z.literal('error'), data: eventDataSchemas.error }),
  z.object({ type: z.literal('file.change'), data: eventDataSchemas['file.change'] }),
])
/** An agent's event with its data checked against the trace format's schema for its type. */
export type AgentEvent = z.infer<typeof agentEventSchema>

/** Parses what an agent sent as an event; the reason when it is not one an agent may send. */
export function parseAgentEvent(type: EventType, data: unknown): { ok: true; event: AgentEvent } | { ok: false; error: string } {
  if (!agentEventTypes.has(type))
    return { ok: false, error: `the agent process sent a "${type}" event, which only the supervisor records; it was dropped` }
  const parsed = agentEventSchema.safeParse({ type, data })
  if (parsed.success) return { ok: true, event: parsed.data }
  const issue = parsed.error.issues[0]
  const where = issue?.path.slice(1).join('.') || 'data'
  return {
    ok: false,
    error: `the agent process sent an invalid "${type}" event (${where}: ${issue?.message ?? 'invalid'}); it was dropped`,
  }
}
