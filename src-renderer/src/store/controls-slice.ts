import { api, transport } from './api-ref'
import { emptyTree } from './tree-state'
import { errorText } from './error-text'
import type { ControlsSlice, SliceCreator } from './types'
import type { SubagentApprovals } from '@core/trace/statuses'

/** User controls: each calls the API, reflects the answer at once, and reports failures. */
export const createControlsSlice: SliceCreator<ControlsSlice> = (set, get) => {
  const attempt = async (what: string, action: () => Promise<void>): Promise<void> => {
    try {
      await action()
    } catch (error) {
      get().notify('error', `${what} failed: ${errorText(error)}`)
    }
  }
  const patchJob = (
    jobId: string,
    patch: { spawn_paused?: boolean; auto_approve?: boolean; subagent_approvals?: SubagentApprovals },
  ): void =>
    set((state) => {
      const job = state.jobs[jobId]
      return job ? { jobs: { ...state.jobs, [jobId]: { ...job, ...patch } } } : {}
    })

  return {
    setSpawnPaused: (jobId, paused) =>
      attempt(paused ? 'Pause spawning' : 'Resume spawning', async () => {
        const result = await api().setSpawnPaused({ job_id: jobId, paused })
        patchJob(jobId, { spawn_paused: result.paused })
      }),

    setAllPaused: (paused) =>
      attempt(paused ? 'Pause all' : 'Resume all', async () => {
        const result = await api().setSpawnPaused({ job_id: null, paused })
        set({ allPaused: result.paused })
      }),

    setAutoApprove: (jobId, value) =>
      attempt('Subagent auto-approve', async () => {
        const result = await api().setAutoApprove({ job_id: jobId, value })
        patchJob(jobId, { auto_approve: result.value, subagent_approvals: result.value ? 'approve' : 'deny' })
      }),

    setSubagentApprovals: (jobId, mode) =>
      attempt('Subagent approvals', async () => {
        const result = await api().setSubagentApprovals({ job_id: jobId, mode })
        patchJob(jobId, { auto_approve: result.mode === 'approve', subagent_approvals: result.mode })
      }),

    killAgent: (agentId) =>
      attempt('Kill', async () => {
        await api().killAgent({ agent_id: agentId })
      }),

    wrapUpAgent: (agentId) =>
      attempt('Wrap up', async () => {
        const result = await api().stopAgent({ agent_id: agentId, mode: 'wrap_up' })
        if (result.already && result.note) get().notify('info', result.note)
        // The node says so at once; the agents' agent.wrap_up events say the same when they arrive.
        const told = [...result.agents]
        set((state) =>
          told.length > 0 && state.tree.jobId !== null && told.every((id) => state.tree.agents[id])
            ? {
                tree: {
                  ...state.tree,
                  wrappingUp: { ...state.tree.wrappingUp, ...Object.fromEntries(told.map((id) => [id, true as const])) },
                },
              }
            : {},
        )
      }),

    cancelSpawn: (agentId) =>
      attempt('Cancel spawn', async () => {
        await api().cancelSpawn({ agent_id: agentId })
      }),

    restartAgent: (agentId) =>
      attempt('Restart', async () => {
        await api().restartAgent({ agent_id: agentId })
      }),

    mergeBranch: (agentId) =>
      attempt('Merge', async () => {
        const result = await api().mergeBranch({ agent_id: agentId })
        if (result.merged) {
          const files = result.files.length === 1 ? '1 file' : `${result.files.length} files`
          get().notify('info', `Merged ${result.branch} into its parent's folder: ${files}`)
          return
        }
        const label = get().tree.agents[agentId]?.label ?? agentId
        set({ mergeConflict: { agentId, label, branch: result.branch, conflicts: result.conflicts } })
      }),

    discardBranch: (agentId) =>
      attempt('Discard', async () => {
        const result = await api().discardBranch({ agent_id: agentId })
        get().notify('info', `Discarded the worktree of ${result.branch}; the branch is kept`)
      }),

    mergeConflict: null,
    closeMergeConflict: () => set({ mergeConflict: null }),

    allowSpawn: (agentId) =>
      attempt('Allow spawn', async () => {
        await api().allowSpawn({ agent_id: agentId })
      }),

    retryNow: (agentId) =>
      attempt('Retry now', async () => {
        await api().retryNow({ agent_id: agentId })
      }),

    // Not `attempt`: the prompt dialog shows the error itself, and stays open to fix it.
    editSpawn: async (agentId, prompt) => {
      await api().editSpawn({ agent_id: agentId, prompt })
    },

    // Not `attempt`: the budget form shows the error itself, and stays open to fix it.
    setBudget: async (target, caps) => {
      await api().setBudget({ ...('jobId' in target ? { job_id: target.jobId } : { agent_id: target.agentId }), ...caps })
    },

    steerAgent: (agentId, text) =>
      attempt('Message', async () => {
        await api().steerAgent({ agent_id: agentId, text })
      }),

    followUp: async (jobId, text, { agentId, budgets = {} } = {}) => {
      try {
        await api().followUp({ job_id: jobId, ...(agentId ? { agent_id: agentId } : {}), text, ...budgets })
        return true
      } catch (error) {
        get().notify('error', `Follow-up failed: ${errorText(error)}`)
        return false
      }
    },

    resumeJob: async (jobId) => {
      try {
        await api().resumeJob({ job_id: jobId })
        return true
      } catch (error) {
        get().notify('error', `Resume failed: ${errorText(error)}`)
        return false
      }
    },

    revokeApprovedCommand: (jobId, command) =>
      attempt('Revoke', async () => {
        await api().revokeApprovedCommand({ job_id: jobId, command })
        set((state) =>
          state.tree.jobId === jobId
            ? { tree: { ...state.tree, approvedCommands: state.tree.approvedCommands.filter((each) => each !== command) } }
            : {},
        )
      }),

    decideApproval: (approval, decision, options = {}) =>
      attempt('Approval', async () => {
        await api().decideApproval({ approval_id: approval.approval_id, decision, ...options })
        set((state) => {
          const rules = state.tree.approvedCommands
          // Approved for the job: the rule shows at once (the decision's event finds the request gone).
          const approvedCommands = options.scope === 'job' && !rules.includes(approval.command) ? [...rules, approval.command] : rules
          return {
            tree: {
              ...state.tree,
              approvals: state.tree.approvals.filter((pending) => pending.approval_id !== approval.approval_id),
              approvedCommands,
            },
          }
        })
      }),

    exportJob: (jobId, format = 'jsonl') =>
      attempt('Export', async () => {
        const note = await transport().exportJob(jobId, format)
        if (note) get().notify('info', note)
      }),

    openProject: (path) =>
      attempt('Open project', async () => {
        const { project } = await api().openProject({ path })
        set({
          project,
          traceOnly: false,
          jobs: {},
          jobOrder: [],
          selectedJobId: null,
          tree: emptyTree(),
          inspectors: [],
          waiting: {},
          budgetWarnings: {},
        })
        await get().loadJobs()
      }),
  }
}
