import { api } from './api-ref'
import type { FormsSlice, SliceCreator } from './types'

let focusSeq = 0

/**
 * The new-job dialog and the settings page: whether each is open, what settings were asked to
 * show, and the last settings read (never a key: only where each key comes from and its last
 * four characters).
 */
export const createFormsSlice: SliceCreator<FormsSlice> = (set, get) => ({
  newJobOpen: false,
  openNewJob: () => set({ newJobOpen: true }),
  closeNewJob: () => set({ newJobOpen: false }),

  settingsOpen: false,
  settingsFocus: null,
  openSettings: (focus) => set({ settingsOpen: true, settingsFocus: settingsFocusOf(focus, ++focusSeq) }),
  closeSettings: () => set({ settingsOpen: false, settingsFocus: null }),

  settingsView: null,
  async loadSettings() {
    const view = await api().getSettings({})
    set({ settingsView: view })
    return view
  },
  patchSettings(update) {
    const view = get().settingsView
    if (view) set({ settingsView: update(view) })
  },

  async startAgentJob(job) {
    const { job_id, root_agent_id } = await api().startJob({ kind: 'agent', job })
    set({ newJobOpen: false })
    await get().loadJobs()
    get().selectJob(job_id)
    // The root's trace is the job's main conversation: show it live, as a chat tool would.
    if (root_agent_id) get().inspect(root_agent_id)
    return job_id
  },
})

/** `seq` differs on every call, so asking for the same model twice scrolls to it again. */
export function settingsFocusOf(focus: { priceModel?: string } | undefined, seq: number): FormsSlice['settingsFocus'] {
  const priceModel = focus?.priceModel?.trim()
  return { priceModel: priceModel ? priceModel : null, seq }
}
