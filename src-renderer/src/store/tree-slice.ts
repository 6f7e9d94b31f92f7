import { api } from './api-ref'
import { sortJobIds } from './jobs-events'
import { finishTreeLoad } from './tree-events'
import { emptyTree, treeFromSnapshot } from './tree-state'
import { errorText, type SliceCreator, type TreeSlice } from './types'

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * Loading a job's tree: events of the job that arrive meanwhile wait in `tree.pending`; once the
 * snapshot is in, only those after its `last_seq` are applied (IPC does not order replies and
 * pushed events, so the watermark must come from the snapshot itself).
 */
export const createTreeSlice: SliceCreator<TreeSlice> = (set, get) => {
  const stillLoading = (jobId: string): boolean => get().tree.jobId === jobId && get().tree.loading
  return {
    tree: emptyTree(),

    async loadTree(jobId) {
      set({ tree: emptyTree(jobId, true) })
      try {
        const snapshot = await api().getTree({ job_id: jobId })
        // The reply's copy (IPC, or a WebSocket's parse) took a task of its own; building the
        // tree and rendering it take one each after it, so that no one frame holds two of them.
        await nextTask()
        if (!stillLoading(jobId)) return
        const loaded = treeFromSnapshot(jobId, snapshot.agents, snapshot.approvals, snapshot.last_seq)
        await nextTask()
        if (!stillLoading(jobId)) return
        set((state) => {
          const jobs = { ...state.jobs, [snapshot.job.id]: snapshot.job }
          const jobOrder = state.jobs[snapshot.job.id] ? state.jobOrder : sortJobIds(jobs)
          return { tree: finishTreeLoad(loaded, state.tree.pending), jobs, jobOrder }
        })
      } catch (error) {
        if (get().tree.jobId !== jobId) return
        set({ tree: { ...emptyTree(jobId), error: errorText(error) } })
      }
    },
  }
}
