import { useLayoutEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { BudgetForm } from '../budget/BudgetForm'
import { useArbor, type ArborState } from '../store'
import type { NodeAnchor } from '../store/types'
import { clampToWindow } from './NodeMenu'

function selectBudgetEdit(state: ArborState) {
  const anchor = state.budgetEdit
  const agent = anchor ? state.tree.agents[anchor.agentId] : undefined
  const subtree = anchor ? state.tree.subtree[anchor.agentId] : undefined
  const job = state.tree.jobId ? state.jobs[state.tree.jobId] : undefined
  return {
    anchor,
    found: agent !== undefined,
    label: agent?.label ?? '',
    tokens: agent?.branch_budget?.tokens ?? null,
    cost: agent?.branch_budget?.cost_usd ?? null,
    spentTokens: subtree?.tokens ?? 0,
    spentCost: subtree?.cost ?? null,
    withCost: (job?.settings?.job_cost_budget ?? null) !== null || (agent?.branch_budget?.cost_usd ?? null) !== null,
  }
}

/**
 * The node menu's Set branch budget…: caps on what the agent and its descendants spend together
 * (API setBudget on the agent). At the cap the branch pauses, the rest of the tree goes on;
 * raising it resumes the branch. The supervisor refuses a cap above what the job has left.
 */
export function BranchBudgetDialog() {
  const view = useArbor(useShallow(selectBudgetEdit))
  if (!view.anchor || !view.found) return null
  return <OpenDialog key={view.anchor.agentId} anchor={view.anchor} view={view} />
}

function OpenDialog({ anchor, view }: { anchor: NodeAnchor; view: ReturnType<typeof selectBudgetEdit> }) {
  const box = useRef<HTMLDivElement>(null)
  const [place, setPlace] = useState({ left: anchor.x, top: anchor.y })
  useLayoutEffect(() => {
    const rect = box.current?.getBoundingClientRect()
    if (rect) setPlace(clampToWindow(anchor.x, anchor.y, rect.width, rect.height))
  }, [anchor.x, anchor.y])
  return (
    <div
      ref={box}
      className="prompt-edit"
      role="dialog"
      aria-modal="true"
      aria-labelledby="branch-budget-title"
      data-agent-id={anchor.agentId}
      style={{ left: place.left, top: place.top }}
    >
      <div className="prompt-edit__title" id="branch-budget-title">
        Budget of the branch under <strong>{view.label}</strong>
      </div>
      <BudgetForm
        what={`${view.label} and its subagents`}
        testId="branch-budget"
        tokens={view.tokens}
        cost={view.cost}
        spentTokens={view.spentTokens}
        spentCost={view.spentCost}
        withCost={view.withCost}
        submitLabel="Set"
        onSubmit={(caps) => useArbor.getState().setBudget({ agentId: anchor.agentId }, caps)}
        onClose={() => useArbor.getState().openBudgetEdit(null)}
      />
    </div>
  )
}
