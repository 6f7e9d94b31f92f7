import type { EventType } from '../trace/events'

/**
 * The events an agent process may send: what happens inside its loop. Everything else (job.*,
 * agent.*, llm.call, subagent.*, approval.*, control, budget.*) is the supervisor's to record, so
 * an agent cannot forge a decision, a spawn, an ending or the usage it is billed for.
 */
export const agentEventTypes: ReadonlySet<EventType> = new Set<EventType>(['message', 'tool.call', 'tool.result', 'context.compact', 'error'])
