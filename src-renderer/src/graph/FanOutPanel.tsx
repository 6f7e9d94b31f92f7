import { Panel } from '@xyflow/react'
import { useArbor, type ArborState } from '../store'
import { graphTree } from '../store/replay-slice'
import { fanOutThreshold, useFanOuts } from './fan-out'

/**
 * Grouping an expanded fan-out again. A button on the graph's corner rather than on the parent's
 * card: a fan-out that fits the view is zoomed out too far for a card's buttons to show.
 */
export function FanOutPanel() {
  const expanded = useFanOuts((state) => state.expanded)
  // JSON, so a status change elsewhere in the tree does not re-render the panel.
  const shown = useArbor((state: ArborState) => {
    const tree = graphTree(state)
    const fanOuts: Array<[id: string, count: number, label: string]> = Object.keys(expanded)
      .filter((id) => (tree.children[id]?.length ?? 0) > fanOutThreshold && !state.collapsed[id])
      .map((id) => [id, tree.children[id]!.length, tree.agents[id]?.label ?? id])
    return JSON.stringify(fanOuts)
  })
  const fanOuts = JSON.parse(shown) as Array<[string, number, string]>
  if (fanOuts.length === 0) return null
  return (
    <Panel position="top-center" className="fan-out-panel">
      {fanOuts.map(([id, count, label]) => (
        <button
          key={id}
          className="fan-out-panel__button"
          data-testid="fan-out-regroup"
          data-parent-id={id}
          onClick={() => useFanOuts.getState().toggle(id)}
        >
          ▦ Group the {count} children of {label}
        </button>
      ))}
    </Panel>
  )
}
