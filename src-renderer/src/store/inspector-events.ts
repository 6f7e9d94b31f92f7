import type { TraceEvent } from '@core/trace/events'

/** One open inspector: the trace of one agent, fetched then tailed live. */
export interface InspectorState {
  agentId: string
  events: TraceEvent[]
  loading: boolean
  error: string | null
}

export const maxInspectors = 3

/** Merges events into a seq-ordered list without duplicates; appends in the common case. */
export function mergeEvents(existing: TraceEvent[], incoming: readonly TraceEvent[]): TraceEvent[] {
  if (incoming.length === 0) return existing
  const last = existing.at(-1)?.seq ?? 0
  if (incoming.every((event, index) => event.seq > (index === 0 ? last : incoming[index - 1]!.seq))) {
    return [...existing, ...incoming]
  }
  const bySeq = new Map<number, TraceEvent>()
  for (const event of existing) bySeq.set(event.seq, event)
  for (const event of incoming) bySeq.set(event.seq, event)
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq)
}

/** Appends each open inspector's agent's events from a live batch. */
export function applyInspectorEvents(inspectors: InspectorState[], events: readonly TraceEvent[]): InspectorState[] {
  if (inspectors.length === 0) return inspectors
  let changed = false
  const next = inspectors.map((inspector) => {
    const mine = events.filter((event) => event.agent_id === inspector.agentId)
    if (mine.length === 0) return inspector
    changed = true
    return { ...inspector, events: mergeEvents(inspector.events, mine) }
  })
  return changed ? next : inspectors
}

/** Opens an inspector (or keeps an open one), dropping the oldest beyond the limit. */
export function openInspector(inspectors: InspectorState[], agentId: string): InspectorState[] {
  if (inspectors.some((inspector) => inspector.agentId === agentId)) return inspectors
  const opened: InspectorState = { agentId, events: [], loading: true, error: null }
  return [...inspectors, opened].slice(-maxInspectors)
}
