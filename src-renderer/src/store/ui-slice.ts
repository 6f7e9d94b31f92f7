import { api } from './api-ref'
import { errorText } from './error-text'
import { noticeLeftWorktrees } from './left-worktrees'
import type { SliceCreator, UiSlice } from './types'

let noticeId = 0

export const createUiSlice: SliceCreator<UiSlice> = (set, get) => ({
  // Optimistic: a failed first connection reports itself through onConnectionChange.
  connected: true,
  project: null,
  allPaused: false,
  collapsed: {},
  dockHover: false,
  notice: null,

  async loadState() {
    try {
      const state = await api().getState({})
      set({ project: state.project, allPaused: state.all_paused })
      if (state.project) void noticeLeftWorktrees(get().notify)
    } catch (error) {
      get().notify('error', `Could not read the engine state: ${errorText(error)}`)
    }
  },

  setConnected: (connected) => set({ connected }),

  toggleCollapsed: (agentId) =>
    set((state) => {
      const collapsed = { ...state.collapsed }
      if (collapsed[agentId]) delete collapsed[agentId]
      else collapsed[agentId] = true
      return { collapsed }
    }),

  setDockHover: (dockHover) => {
    if (get().dockHover !== dockHover) set({ dockHover })
  },

  notify: (kind, text) => set({ notice: { id: ++noticeId, kind, text } }),
  dismissNotice: () => set({ notice: null }),
})
