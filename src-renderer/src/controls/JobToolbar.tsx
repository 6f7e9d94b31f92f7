import { useShallow } from 'zustand/react/shallow'
import { JobStatusBadge } from '../jobs/JobStatusBadge'
import { useArbor, type ArborState } from '../store'
import { rootKey } from '../store/tree-state'
import { formatCost, formatTokens } from '../util/format'
import { BudgetMeter } from './BudgetMeter'

function selectToolbar(state: ArborState) {
  const job = state.selectedJobId ? state.jobs[state.selectedJobId] : undefined
  const roots = state.tree.jobId === job?.id ? (state.tree.children[rootKey] ?? []) : []
  let treeTokens = 0
  let treeCost: number | null = null
  for (const root of roots) {
    const totals = state.tree.subtree[root]
    if (!totals) continue
    treeTokens += totals.tokens
    if (totals.cost !== null) treeCost = (treeCost ?? 0) + totals.cost
  }
  return { job, rootId: roots[0] ?? null, treeTokens, treeCost, agents: state.tree.order.length }
}

/** Controls and totals of the selected job. */
export function JobToolbar() {
  const { job, rootId, treeTokens, treeCost, agents } = useArbor(useShallow(selectToolbar))
  if (!job) return <div className="toolbar empty" />
  const store = useArbor.getState()
  const jobTokens = job.usage.input_tokens + job.usage.output_tokens
  const tokens = job.status === 'running' ? treeTokens : jobTokens || treeTokens
  const cost = job.status === 'running' ? treeCost : (job.cost_usd ?? treeCost)
  const settings = job.settings

  return (
    <div className="toolbar">
      <div className="toolbar__group">
        <JobStatusBadge status={job.status} testId="job-status" />
        <span className="toolbar__task" title={job.task}>
          {job.task.split('\n')[0]}
        </span>
        <span className="toolbar__totals">
          {agents} agents · {formatTokens(tokens)} tok{cost !== null ? ` · ${formatCost(cost)}` : ''}
        </span>
        {settings?.job_token_budget ? (
          <BudgetMeter label="tokens" used={tokens} budget={settings.job_token_budget} format={formatTokens} />
        ) : null}
        {settings?.job_cost_budget ? (
          <BudgetMeter label="cost" used={cost ?? 0} budget={settings.job_cost_budget} format={formatCost} />
        ) : null}
      </div>
      <div className="toolbar__group toolbar__controls">
        <button
          className={`button${job.spawn_paused ? ' warn' : ''}`}
          data-testid="pause-toggle"
          disabled={job.status !== 'running'}
          onClick={() => void store.setSpawnPaused(job.id, !job.spawn_paused)}
        >
          {job.spawn_paused ? 'Resume spawning' : 'Pause spawning'}
        </button>
        <label className="switch" title="Approve risky actions of subagents automatically (the root always asks)">
          <input
            type="checkbox"
            data-testid="auto-approve"
            checked={job.auto_approve}
            disabled={job.status !== 'running'}
            onChange={(event) => void store.setAutoApprove(job.id, event.target.checked)}
          />
          <span className="switch__track" aria-hidden />
          Subagent auto-approve
        </label>
        {job.status === 'running' && rootId && (
          <button className="button danger" data-testid="kill-job" onClick={() => void store.killAgent(rootId)}>
            Kill job
          </button>
        )}
        <button className="button" data-testid="export-jsonl" onClick={() => void store.exportJob(job.id)}>
          ⤓ Export JSONL
        </button>
      </div>
    </div>
  )
}
