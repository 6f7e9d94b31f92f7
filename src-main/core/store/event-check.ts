import { eventTypes, type NewTraceEvent, type TraceEvent } from '../trace/events'
import { InvalidEventError } from './errors'

const knownTypes: ReadonlySet<string> = new Set(eventTypes)

/** An event that passed the checks: the writer's own copy (its seq set when it is inserted) and its data as JSON. */
export interface CheckedEvent {
  event: TraceEvent
  data: string
  /** File versions the event names (a `file.change`'s), stored in the transaction that inserts it. */
  contents?: readonly Uint8Array[]
}

/**
 * Cheap envelope checks made when an event is appended, so a malformed event fails at its
 * caller rather than poisoning a batch later. Returns the event as it will be stored, envelope
 * keys in trace order and `seq` 0 until the commit sets it (one object literal per event: the
 * writer's hot path makes no other copy), and the data serialised once (which also snapshots it
 * against later mutation).
 */
export function checkEvent(event: NewTraceEvent): CheckedEvent {
  const { type, ts, job_id, agent_id, parent_id, depth, data } = event
  if (!knownTypes.has(type)) throw new InvalidEventError(`unknown type ${JSON.stringify(type)}`)
  if (typeof ts !== 'string' || ts === '') throw new InvalidEventError(`${type}: ts must be an ISO 8601 string`)
  if (typeof job_id !== 'string' || job_id === '') throw new InvalidEventError(`${type}: job_id must be a string`)
  if (agent_id !== null && typeof agent_id !== 'string') throw new InvalidEventError(`${type}: agent_id must be a string or null`)
  if (parent_id !== null && typeof parent_id !== 'string') throw new InvalidEventError(`${type}: parent_id must be a string or null`)
  if (depth !== null && !(Number.isInteger(depth) && depth >= 0)) {
    throw new InvalidEventError(`${type}: depth must be a non-negative integer or null`)
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new InvalidEventError(`${type}: data must be an object`)
  }
  let serialized: string
  try {
    serialized = JSON.stringify(data)
  } catch (error) {
    throw new InvalidEventError(`${type}: data is not serialisable as JSON (${(error as Error).message})`)
  }
  return { event: { type, ts, job_id, agent_id, parent_id, depth, data, seq: 0 } as TraceEvent, data: serialized }
}
