import { useState } from 'react'
import type { JobSettings } from '@core/trace/model'
import { useArbor } from '../store'
import { BudgetForm } from './BudgetForm'

/**
 * The toolbar's Raise to… beside the job's budget meters: opens a small form for new caps (API
 * setBudget on the job). Agents paused at a spent cap go on once it is raised. `paused` marks it
 * as what the user is waited for.
 */
export function RaiseBudget(props: { jobId: string; settings: JobSettings; tokens: number; cost: number | null; paused: boolean }) {
  const [open, setOpen] = useState(false)
  return (
    <span className="raise-budget">
      <button
        className={`button${props.paused ? ' warn' : ''}`}
        data-testid="budget-raise"
        aria-expanded={open}
        title="Raise the job's budget: agents paused at it go on"
        onClick={() => setOpen(!open)}
      >
        Raise to…
      </button>
      {open && (
        <div className="raise-budget__popover" role="dialog" aria-label="Raise the job's budget">
          <BudgetForm
            what="the job"
            testId="budget-raise-form"
            tokens={props.settings.job_token_budget}
            cost={props.settings.job_cost_budget}
            spentTokens={props.tokens}
            spentCost={props.cost}
            withCost={props.settings.job_cost_budget !== null}
            submitLabel="Raise"
            onSubmit={(caps) => useArbor.getState().setBudget({ jobId: props.jobId }, caps)}
            onClose={() => setOpen(false)}
          />
        </div>
      )}
    </span>
  )
}
