import type { ProjectInfo } from '@core/api/contract'
import { api, transport } from './api-ref'
import { emptyTree } from './tree-state'
import { errorText } from './error-text'
import { noticeLeftWorktrees } from './left-worktrees'
import type { ArborState, ProjectsSlice, SliceCreator } from './types'

/** Everything of the previous project the views hold, cleared when another opens or it closes. */
const clearedProjectView = (): Partial<ArborState> => ({
  jobs: {},
  jobOrder: [],
  jobsLoaded: false,
  selectedJobId: null,
  selectedAgentId: null,
  tree: emptyTree(),
  inspectors: [],
  waiting: {},
  budgetWarnings: {},
  confirmKillId: null,
})

/** The start screen's actions: open a folder (typed, picked, dropped or recent), close it, import a trace. */
export const createProjectsSlice: SliceCreator<ProjectsSlice> = (set, get) => {
  const enter = async (project: ProjectInfo): Promise<void> => {
    set({ ...clearedProjectView(), project, traceOnly: false })
    await get().loadJobs()
    void noticeLeftWorktrees(get().notify)
  }

  return {
    ready: false,
    setReady: () => set({ ready: true }),
    recentProjects: [],
    recentLoaded: false,
    traceOnly: false,

    async loadRecentProjects() {
      try {
        const { projects } = await api().listRecentProjects({})
        set({ recentProjects: projects, recentLoaded: true })
      } catch (error) {
        set({ recentLoaded: true })
        get().notify('error', `Could not list recent projects: ${errorText(error)}`)
      }
    },

    async openFolder(path) {
      try {
        const { project } = await api().openProject({ path })
        await enter(project)
        return null
      } catch (error) {
        return errorText(error)
      }
    },

    async chooseFolder() {
      try {
        const { project } = await api().chooseProjectFolder({})
        if (project) await enter(project)
        return null
      } catch (error) {
        return errorText(error)
      }
    },

    async closeProject() {
      try {
        await api().closeProject({})
      } catch (error) {
        get().notify('error', `Could not close the project: ${errorText(error)}`)
        return
      }
      set({ ...clearedProjectView(), project: null, traceOnly: false })
      void get().loadRecentProjects()
    },

    async importTrace(source) {
      try {
        let jobId: string
        if (source === 'dialog') {
          const chosen = await api().chooseTraceFile({})
          if (!chosen.job_id) return null
          jobId = chosen.job_id
        } else {
          const imported = await transport().importTraceFile(source)
          jobId = imported.job_id
          if (imported.existing) get().notify('info', 'This trace was already imported: showing the stored job.')
        }
        get().showJob(jobId)
        return null
      } catch (error) {
        return errorText(error)
      }
    },

    showJob(jobId) {
      const state = get()
      if (!state.project) set({ traceOnly: true })
      if (state.selectedJobId === jobId) void state.loadTree(jobId)
      else state.selectJob(jobId)
      // The job may be new to the list (an import into the open project).
      if (state.project) void state.loadJobs()
    },
  }
}
