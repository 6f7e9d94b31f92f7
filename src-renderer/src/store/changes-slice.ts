import { api } from './api-ref'
import type { ChangesSlice, SliceCreator } from './types'

/**
 * The Changes views' shared state: per agent of the shown job how many files it changed (the
 * nodes' badges, from getChanges' `by_agent`), fetched again when a `file.change` of the job
 * arrives (one fetch at a time, one more after it when others came meanwhile); and which view
 * or dialog was asked for. The views fetch their files and diffs themselves.
 */
export const createChangesSlice: SliceCreator<ChangesSlice> = (set, get) => {
  let loading: string | null = null
  let again = false
  return {
    changeCounts: { jobId: null, byAgent: {}, jobFiles: 0, revision: 0 },
    async loadChangeCounts(jobId) {
      if (loading === jobId) {
        again = true
        return
      }
      loading = jobId
      if (get().changeCounts.jobId !== jobId) set({ changeCounts: { jobId, byAgent: {}, jobFiles: 0, revision: 0 } })
      try {
        do {
          again = false
          const { by_agent, total } = await api().getChanges({ job_id: jobId, counts_only: true })
          if (get().changeCounts.jobId !== jobId) return
          set((state) => ({ changeCounts: { jobId, byAgent: by_agent, jobFiles: total, revision: state.changeCounts.revision + 1 } }))
        } while (again)
      } catch {
        // An imported job of an older Arbor, a lost connection: no badges; the next change tries again.
      } finally {
        if (loading === jobId) loading = null
      }
    },
    jobChangesOpen: false,
    openJobChanges: (jobChangesOpen) => set({ jobChangesOpen }),
    revertDialog: null,
    openRevert: (agentId) => set(agentId === null ? { revertDialog: null } : { revertDialog: { agentId }, nodeMenu: null }),
    changesFocus: null,
    showChanges(agentId, path) {
      get().inspect(agentId)
      set((state) => ({ changesFocus: { agentId, path: path ?? null, nonce: (state.changesFocus?.nonce ?? 0) + 1 } }))
    },
  }
}
