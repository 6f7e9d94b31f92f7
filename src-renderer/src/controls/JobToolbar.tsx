import { useShallow } from 'zustand/react/shallow'
import { JobStatusBadge } from '../jobs/JobStatusBadge'
import { SubagentApprovalsControl } from './SubagentApprovalsControl'
import { subagentApprovalsOf } from '@core/trace/model'
import { useArbor, type ArborState } from '../store'
import { rootKey } from '../store/tree-state'
import { formatCost, formatTokens } from '../util/format'
import { BudgetMeter } from './BudgetMeter'
import { RaiseBudget } from '../budget/RaiseBudget'
import { ExportMenu } from './ExportMenu'
import { JobChangesButton } from '../changes/JobChanges'
import { budgetShare, stopReasonOf, warningShare } from './job-signals'

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
  return {
    job,
    rootId: roots[0] ?? null,
    treeTokens,
    treeCost,
    agents: state.tree.order.length,
    eventShare: job ? state.budgetWarnings[job.id] : undefined,
    // Changes when an agent ends (terminal reasons), not on every token.
    treeAgents: state.tree.jobId === job?.id ? state.tree.agents : null,
    /** Agents paused at the job's cap: the user is waited for. */
    // Counted only for a job with a cap: a big tree without one costs nothing here.
    budgetPaused:
      state.tree.jobId === job?.id && (job?.settings?.job_token_budget || job?.settings?.job_cost_budget)
        ? Object.values(state.tree.agents).filter((agent) => agent.wait?.reason === 'job_budget').length
        : 0,
  }
}

/** Controls and totals of the selected job; an imported job is shown read-only, without controls. */
export function JobToolbar() {
  const { job, rootId, treeTokens, treeCost, agents, eventShare, treeAgents, budgetPaused } = useArbor(useShallow(selectToolbar))
  if (!job) return <div className="toolbar empty" />
  const store = useArbor.getState()
  const jobTokens = job.usage.input_tokens + job.usage.output_tokens
  const tokens = job.status === 'running' ? treeTokens : jobTokens || treeTokens
  const cost = job.status === 'running' ? treeCost : (job.cost_usd ?? treeCost)
  const settings = job.settings
  const share = budgetShare(settings, tokens, cost)
  const stop = treeAgents ? stopReasonOf({ settings, tokens, cost, agents: Object.values(treeAgents) }) : null
  const warning = warningShare(eventShare, share)
  const showWarning = warning !== null && !(stop && (stop.kind === 'job_token_budget' || stop.kind === 'job_cost_budget'))
  const live = job.status === 'running' && !job.imported

  return (
    <div className="toolbar" data-testid="job-toolbar" data-imported={job.imported ? 'true' : undefined}>
      <div className="toolbar__group">
        <JobStatusBadge status={job.status} reason={job.end_reason} testId="job-status" />
        {job.imported && (
          <span className="tag imported" data-testid="job-imported" title="Read from a trace file: shown, never controlled">
            imported · read-only
          </span>
        )}
        {job.imported && (
          // The folder the file says it was recorded in: information, never a place to run.
          <span className="toolbar__recorded" data-testid="job-recorded-in" title={`The trace says it was recorded in ${job.project}`}>
            recorded in {job.project}
          </span>
        )}
        {settings?.no_sandbox && (
          <span
            className="tag bad sandbox-off"
            data-testid="job-no-sandbox"
            title="Commands run without the OS sandbox: they can read and write anything you can"
          >
            no sandbox
          </span>
        )}
        {settings?.allow_network && (
          <span className="tag network-on" data-testid="job-network-on" title="Commands may reach the network">
            network on
          </span>
        )}
        <span className="toolbar__task" title={job.task}>
          {job.task.split('\n')[0]}
        </span>
        <span className="toolbar__totals">
          {agents} agents · {formatTokens(tokens)} tok
          {cost !== null ? (
            ` · ${formatCost(cost)}`
          ) : tokens > 0 ? (
            <span title="Its models have no price: the cost is unknown"> · no price</span>
          ) : (
            ''
          )}
        </span>
      </div>
      <div className="toolbar__group toolbar__signals">
        {settings?.job_token_budget ? (
          <BudgetMeter label="tokens" testId="budget-tokens" used={tokens} budget={settings.job_token_budget} format={formatTokens} />
        ) : null}
        {settings?.job_cost_budget ? (
          <BudgetMeter label="cost" testId="budget-cost" used={cost ?? 0} budget={settings.job_cost_budget} format={formatCost} />
        ) : null}
        {budgetPaused > 0 && (
          <span
            className="tag warn"
            data-testid="budget-paused"
            title="These agents wait at their next step until the job's budget is raised, or the job is wrapped up or killed"
          >
            {budgetPaused} paused at the budget
          </span>
        )}
        {live && settings && (settings.job_token_budget || settings.job_cost_budget) ? (
          <RaiseBudget jobId={job.id} settings={settings} tokens={tokens} cost={cost} paused={budgetPaused > 0} />
        ) : null}
        {showWarning && !budgetPaused && (
          <span
            className="tag warn"
            data-testid="budget-warning"
            data-share={warning.toFixed(3)}
            title="The job has used most of its budget"
          >
            ⚠ {Math.floor(warning * 100)}% of budget used
          </span>
        )}
        {stop && (
          <span
            className={`tag ${stop.job ? 'bad' : 'warn'}`}
            data-testid="job-stop-reason"
            data-kind={stop.kind}
            title={stop.job ? 'The job was stopped by a cap' : 'Some subagents were stopped by a cap; the job went on'}
          >
            {stop.text}
          </span>
        )}
      </div>
      <div className="toolbar__group toolbar__controls">
        {!job.imported && (
          <>
            <button
              className={`button${job.spawn_paused ? ' warn' : ''}`}
              data-testid="pause-toggle"
              disabled={!live}
              title="Hold new subagents until resumed (P)"
              onClick={() => void store.setSpawnPaused(job.id, !job.spawn_paused)}
            >
              {job.spawn_paused ? 'Resume spawning' : 'Pause spawning'}
            </button>
            <SubagentApprovalsControl
              mode={subagentApprovalsOf(job)}
              disabled={!live}
              onChange={(mode) => void store.setSubagentApprovals(job.id, mode)}
            />
            {live && rootId && (
              <button className="button danger" data-testid="kill-job" onClick={() => store.askKill(rootId)}>
                Kill job
              </button>
            )}
          </>
        )}
        <JobChangesButton jobId={job.id} />
        <ExportMenu jobId={job.id} />
      </div>
    </div>
  )
}
