import type { CommandsSlice, SliceCreator } from './types'

/** Requests from keyboard shortcuts to the views: help overlay, fit view, kill confirmation. */
export const createCommandsSlice: SliceCreator<CommandsSlice> = (set, get) => ({
  shortcutsOpen: false,
  fitViewRequest: 0,
  confirmKillId: null,
  toggleShortcuts: (open) => set({ shortcutsOpen: open ?? !get().shortcutsOpen }),
  requestFitView: () => set({ fitViewRequest: get().fitViewRequest + 1 }),
  askKill: (agentId) => set({ confirmKillId: agentId }),
})
