import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { agentsEndedByKill } from '../store/kill-rule'
import { isLiveStatus } from '@core/trace/statuses'

function selectConfirm(state: ArborState) {
  const id = state.confirmKillId
  const agent = id ? state.tree.agents[id] : undefined
  return {
    id,
    label: agent?.label ?? '',
    status: agent?.status,
    isRoot: agent?.parent_id === null,
    ending: id ? agentsEndedByKill(state.tree, id) : 0,
  }
}

/**
 * The inline "kill this branch?" bar, for a kill that would end the root or more than five
 * agents (store/kill-rule.ts), whichever way it was asked for (the `k` shortcut, a node's Kill,
 * the toolbar's Kill job): Enter kills, Esc keeps it. It names how many agents end.
 */
export function KillConfirm() {
  const { id, label, status, isRoot, ending } = useArbor(useShallow(selectConfirm))
  const active = status !== undefined && isLiveStatus(status)
  useEffect(() => {
    if (!id) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') useArbor.getState().askKill(null)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [id])
  // The agent ended meanwhile: nothing left to confirm.
  useEffect(() => {
    if (id && !active) useArbor.getState().askKill(null)
  }, [id, active])
  if (!id || !active) return null
  const kill = () => {
    const state = useArbor.getState()
    state.askKill(null)
    void state.killAgent(id)
  }
  return (
    <div className="confirm-bar" role="alertdialog" data-testid="kill-confirm">
      <span className="confirm-bar__text">
        {isRoot ? 'End the whole job: kill ' : 'Kill '}
        <strong>{label}</strong>
        {ending > 1 ? ` and what runs under it: ${ending} agents end` : ''}? Its work so far is kept in the trace.
      </span>
      <button className="button danger" data-testid="kill-confirm-yes" autoFocus onClick={kill}>
        {isRoot ? 'Kill job' : 'Kill branch'}
      </button>
      <button className="button" data-testid="kill-confirm-no" onClick={() => useArbor.getState().askKill(null)}>
        Cancel
      </button>
    </div>
  )
}
