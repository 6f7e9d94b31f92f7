import { api } from './api-ref'
import { sortJobIds } from './jobs-events'
import { finishTreeLoad } from './tree-events'
import { emptyTree, SnapshotTree, treePageSize } from './tree-state'
import { errorText } from './error-text'
import type { SliceCreator, TreeSlice } from './types'

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * Loading a job's tree: a page of agents per reply, all of one snapshot, each added to the tree
 * in a task of its own. Events of the job that arrive meanwhile wait in `tree.pending`; once the
 * last page is in, only those after the snapshot's `last_seq` are applied (IPC does not order
 * replies and pushed events, so the watermark must come from the snapshot itself).
 */
export const createTreeSlice: SliceCreator<TreeSlice> = (set, get) => {
  const stillLoading = (jobId: string): boolean => get().tree.jobId === jobId && get().tree.loading
  return {
    tree: emptyTree(),

    async loadTree(jobId) {
      set({ tree: emptyTree(jobId, true) })
      try {
        const snapshot = new SnapshotTree()
        let reply = await api().getTree({ job_id: jobId, limit: treePageSize })
        for (;;) {
          // The reply's copy took a task of its own; adding its agents takes another.
          await nextTask()
          if (!stillLoading(jobId)) return
          snapshot.add(reply.agents)
          if (!reply.next) break
          reply = await api().getTree({ job_id: jobId, page: reply.next })
        }
        // Finishing the tree and rendering it take a task each, so that no one frame holds two.
        await nextTask()
        if (!stillLoading(jobId)) return
        const loaded = snapshot.finish(
          jobId,
          reply.approvals,
          reply.last_seq,
          reply.approved_commands,
          reply.wrapping_up,
          reply.held,
          reply.unresponsive,
          reply.worktrees,
        )
        await nextTask()
        if (!stillLoading(jobId)) return
        const job = reply.job
        set((state) => {
          const jobs = { ...state.jobs, [job.id]: job }
          const jobOrder = state.jobs[job.id] ? state.jobOrder : sortJobIds(jobs)
          const answers = reply.answer === null ? state.answers : { ...state.answers, [job.id]: reply.answer }
          return { tree: finishTreeLoad(loaded, state.tree.pending), jobs, jobOrder, answers }
        })
      } catch (error) {
        if (get().tree.jobId !== jobId) return
        set({ tree: { ...emptyTree(jobId), error: errorText(error) } })
      }
    },
  }
}
