import type { TraceEvent } from '../../../src-main/core/trace/events'
import { api } from './api-ref'
import { mergeEvents, openInspector, type InspectorState } from './inspector-events'
import { errorText, type InspectorSlice, type SliceCreator } from './types'

const pageSize = 5000
const maxPages = 20

/** Fetches an agent's stored events after `afterSeq`, page by page. */
async function fetchEvents(agentId: string, afterSeq: number): Promise<TraceEvent[]> {
  const all: TraceEvent[] = []
  let cursor = afterSeq
  for (let page = 0; page < maxPages; page++) {
    const { events } = await api().getEvents({ agent_id: agentId, after_seq: cursor, limit: pageSize })
    all.push(...events)
    if (events.length < pageSize) break
    cursor = events.at(-1)!.seq
  }
  return all
}

export const createInspectorSlice: SliceCreator<InspectorSlice> = (set, get) => {
  const update = (agentId: string, change: (inspector: InspectorState) => InspectorState): void =>
    set((state) => ({
      inspectors: state.inspectors.map((inspector) => (inspector.agentId === agentId ? change(inspector) : inspector)),
    }))

  const load = async (agentId: string, afterSeq: number): Promise<void> => {
    try {
      const events = await fetchEvents(agentId, afterSeq)
      update(agentId, (inspector) => ({ ...inspector, loading: false, error: null, events: mergeEvents(inspector.events, events) }))
    } catch (error) {
      update(agentId, (inspector) => ({ ...inspector, loading: false, error: errorText(error) }))
    }
  }

  return {
    inspectors: [],
    selectedAgentId: null,
    inspectorFocus: null,

    inspect(agentId) {
      const already = get().inspectors.some((inspector) => inspector.agentId === agentId)
      set((state) => ({ selectedAgentId: agentId, inspectors: openInspector(state.inspectors, agentId) }))
      if (!already) void load(agentId, 0)
    },

    inspectAt(agentId, seq) {
      get().inspect(agentId)
      set((state) => ({ inspectorFocus: { agentId, seq, nonce: (state.inspectorFocus?.nonce ?? 0) + 1 } }))
    },

    closeInspector(agentId) {
      set((state) => ({
        inspectors: state.inspectors.filter((inspector) => inspector.agentId !== agentId),
        selectedAgentId: state.selectedAgentId === agentId ? null : state.selectedAgentId,
      }))
    },

    reloadInspectors() {
      for (const inspector of get().inspectors) void load(inspector.agentId, inspector.events.at(-1)?.seq ?? 0)
    },
  }
}
