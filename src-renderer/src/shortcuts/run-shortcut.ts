import { useArbor } from '../store'
import { subagentApprovalsOf } from '@core/trace/model'
import { isLiveStatus, nextApprovalMode } from '@core/trace/statuses'
import type { ShortcutAction } from './keymap'

/** Carries out a shortcut on the store; says why when it cannot (read-only job, nothing selected, …). */
export function runShortcut(action: ShortcutAction): void {
  const state = useArbor.getState()
  const job = state.selectedJobId ? state.jobs[state.selectedJobId] : undefined
  const info = (text: string) => state.notify('info', text)
  /** The selected job if the user may steer it; otherwise says why not. */
  const liveJob = (): typeof job => {
    const why = !job
      ? 'Select a job first.'
      : job.imported
        ? 'This job was imported from a trace: it is read-only.'
        : job.status !== 'running'
          ? 'This job is not running any more.'
          : null
    if (why) info(why)
    return why ? undefined : job
  }

  switch (action) {
    case 'help':
      return state.toggleShortcuts()
    case 'fitView':
      return state.requestFitView()
    case 'newJob': {
      if (!state.project) return info('Open a folder first: jobs run in a project.')
      return state.openNewJob()
    }
    case 'settings':
      return state.openSettings()
    case 'exportJsonl':
      if (!job) return info('Select a job first.')
      return void state.exportJob(job.id, 'jsonl')
    case 'togglePause': {
      const target = liveJob()
      if (target) void state.setSpawnPaused(target.id, !target.spawn_paused)
      return
    }
    case 'toggleAutoApprove': {
      const target = liveJob()
      if (target) void state.setSubagentApprovals(target.id, nextApprovalMode(subagentApprovalsOf(target)))
      return
    }
    case 'messageAgent': {
      if (!liveJob()) return
      const agent = state.selectedAgentId ? state.tree.agents[state.selectedAgentId] : undefined
      if (!agent) return info('Select an agent first (click its node), then press M to message it.')
      if (!isLiveStatus(agent.status)) return info(`${agent.label} is not running: only a running agent takes a message.`)
      state.inspect(agent.id)
      // The box is drawn with the inspector: focus it once it is there.
      requestAnimationFrame(() => focusSteerBox(agent.id))
      return
    }
    case 'nodeMenu': {
      const agent = state.selectedAgentId ? state.tree.agents[state.selectedAgentId] : undefined
      if (!agent) return info('Select an agent first (click its node), then press . for its menu.')
      return state.openNodeMenu({ agentId: agent.id, ...menuPointFor(agent.id) })
    }
    case 'wrapUp': {
      if (!liveJob()) return
      const agent = state.selectedAgentId ? state.tree.agents[state.selectedAgentId] : undefined
      if (!agent) return info('Select an agent first (click its node), then press W to wrap it up.')
      if (!isLiveStatus(agent.status)) return info(`${agent.label} is not running: there is nothing to wrap up.`)
      if (state.tree.wrappingUp[agent.id]) return info(`${agent.label} is already wrapping up.`)
      return void state.wrapUpAgent(agent.id)
    }
    case 'killBranch': {
      if (!liveJob()) return
      const agent = state.selectedAgentId ? state.tree.agents[state.selectedAgentId] : undefined
      if (!agent) return info('Select an agent first (click its node), then press K to kill its branch.')
      if (!isLiveStatus(agent.status)) return info(`${agent.label} is not running.`)
      return state.askKill(agent.id)
    }
  }
}

/** Focuses the message box of an agent's open inspector (the `m` shortcut, the node menu's Steer…). */
export function focusSteerBox(agentId: string): void {
  focusInspectorBox(agentId, 'steer')
}

/** Focuses a text box under an agent's inspector (`steer`, `agent-follow-up`; inspector/SendBox.tsx). */
export function focusInspectorBox(agentId: string, kind: string): void {
  const box = document.querySelector<HTMLTextAreaElement>(
    `[data-testid="inspector"][data-agent-id="${CSS.escape(agentId)}"] [data-testid="${kind}-input"]`,
  )
  box?.focus()
}

/** Where the menu of a node opened from the keyboard goes: under the node as drawn, else mid-window. */
function menuPointFor(agentId: string): { x: number; y: number } {
  const node = document.querySelector(`[data-testid="agent-node"][data-agent-id="${CSS.escape(agentId)}"]`)
  const box = node?.getBoundingClientRect()
  return box ? { x: box.left, y: box.bottom + 4 } : { x: window.innerWidth / 2, y: window.innerHeight / 3 }
}
