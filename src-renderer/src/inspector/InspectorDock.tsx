import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { maxInspectors } from '../store/inspector-events'
import { Inspector } from './Inspector'

const selectOpenIds = (state: ArborState) => state.inspectors.map((inspector) => inspector.agentId)
const selectDockHover = (state: ArborState) => state.dockHover

/** The right-hand dock: up to three inspectors side by side; nodes are dropped or clicked in. */
export function InspectorDock() {
  const agentIds = useArbor(useShallow(selectOpenIds))
  const hover = useArbor(selectDockHover)
  return (
    <aside className={`inspector-dock count-${agentIds.length}${hover ? ' drop-target' : ''}`} data-testid="inspector-dock">
      {agentIds.length === 0 ? (
        <div className="inspector-dock__empty">
          <div className="inspector-dock__hint">Click an agent, or drag it here, to open its trace.</div>
          <div className="inspector-dock__sub">Up to {maxInspectors} side by side to compare branches.</div>
        </div>
      ) : (
        agentIds.map((agentId) => <Inspector key={agentId} agentId={agentId} />)
      )}
    </aside>
  )
}
