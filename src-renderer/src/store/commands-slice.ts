import { killNeedsConfirm } from './kill-rule'
import type { CommandsSlice, SliceCreator } from './types'

/** Requests from keyboard shortcuts to the views: help overlay, fit view, kill confirmation, a node's menu and prompt dialog. */
export const createCommandsSlice: SliceCreator<CommandsSlice> = (set, get) => ({
  shortcutsOpen: false,
  fitViewRequest: 0,
  confirmKillId: null,
  toggleShortcuts: (open) => set({ shortcutsOpen: open ?? !get().shortcutsOpen }),
  requestFitView: () => set({ fitViewRequest: get().fitViewRequest + 1 }),
  // A small branch goes at once; the root or more than five agents ask first (kill-rule.ts).
  askKill: (agentId) => {
    if (agentId !== null && !killNeedsConfirm(get().tree, agentId)) {
      set({ confirmKillId: null })
      void get().killAgent(agentId)
      return
    }
    set({ confirmKillId: agentId })
  },
  nodeMenu: null,
  openNodeMenu: (nodeMenu) => set({ nodeMenu }),
  promptEdit: null,
  // The dialog replaces the menu it was opened from.
  openPromptEdit: (promptEdit) => set(promptEdit ? { promptEdit, nodeMenu: null } : { promptEdit }),
  budgetEdit: null,
  openBudgetEdit: (budgetEdit) => set(budgetEdit ? { budgetEdit, nodeMenu: null } : { budgetEdit }),
})
