import { api } from './api-ref'
import { mergeEvents, openInspector, type InspectorState } from './inspector-events'
import { errorText } from './error-text'
import type { InspectorSlice, SliceCreator } from './types'

/** The API's largest page. Pages are fetched one after another, each shown as it arrives. */
const pageSize = 5000

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

export const createInspectorSlice: SliceCreator<InspectorSlice> = (set, get) => {
  const update = (agentId: string, change: (inspector: InspectorState) => InspectorState): void =>
    set((state) => ({
      inspectors: state.inspectors.map((inspector) => (inspector.agentId === agentId ? change(inspector) : inspector)),
    }))

  /**
   * Fetches an agent's stored events after `afterSeq`, oldest first, a page at a time, and shows
   * each page as it arrives: the first rows are on screen after one round trip, and no single
   * reply, parse or render holds 100,000 events. Stops when the inspector is closed.
   */
  const load = async (agentId: string, afterSeq: number): Promise<void> => {
    let cursor = afterSeq
    try {
      for (;;) {
        const { events } = await api().getEvents({ agent_id: agentId, after_seq: cursor, limit: pageSize })
        if (!get().inspectors.some((inspector) => inspector.agentId === agentId)) return
        const more = events.length === pageSize
        update(agentId, (inspector) => ({ ...inspector, loading: more, error: null, events: mergeEvents(inspector.events, events) }))
        if (!more) return
        cursor = events.at(-1)!.seq
        // Let the page paint (and the user scroll) between pages, however fast the transport answers.
        await nextTask()
      }
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
