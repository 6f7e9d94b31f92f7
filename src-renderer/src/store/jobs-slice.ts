import type { Job } from '@core/trace/model'
import { api } from './api-ref'
import { sortJobIds } from './jobs-events'
import { errorText } from './error-text'
import type { JobsSlice, SliceCreator } from './types'

export const createJobsSlice: SliceCreator<JobsSlice> = (set, get) => ({
  jobs: {},
  jobOrder: [],
  jobsLoaded: false,
  selectedJobId: null,
  answers: {},

  async loadJobs() {
    // With no project open there is no job list (the start screen shows); a trace shown then keeps its one job.
    if (!get().project) return set({ jobsLoaded: true })
    try {
      const { jobs: list, waiting } = await api().listJobs({})
      const jobs: Record<string, Job> = {}
      for (const job of list) jobs[job.id] = job
      // A job shown from elsewhere (an import of another project's trace, `?job=`) stays while it is selected.
      const shown = get().selectedJobId
      const kept = shown && !jobs[shown] ? get().jobs[shown] : undefined
      if (shown && kept) jobs[shown] = kept
      set({ jobs, jobOrder: sortJobIds(jobs), jobsLoaded: true, waiting: waiting ?? {} })
      const { selectedJobId, jobOrder } = get()
      // Open the newest job on first load, so the graph is not empty when there is history.
      if (!selectedJobId && jobOrder[0]) get().selectJob(jobOrder[0])
    } catch (error) {
      get().notify('error', `Could not list jobs: ${errorText(error)}`)
    }
  },

  selectJob(jobId) {
    if (jobId === get().selectedJobId) return
    // Inspectors show one job's agents: another job's would crowd the graph with traces it does not draw.
    set({ selectedJobId: jobId, selectedAgentId: null, inspectors: [] })
    if (jobId) void get().loadTree(jobId)
  },

  async startJob(kind, task) {
    try {
      const input = kind === 'demo' ? { kind } : { kind, task }
      const { job_id } = await api().startJob(input)
      await get().loadJobs()
      get().selectJob(job_id)
    } catch (error) {
      get().notify('error', `Could not start the job: ${errorText(error)}`)
    }
  },
})
