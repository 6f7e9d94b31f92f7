import { addCost, addUsage, emptyUsage, type Usage } from '../trace/usage'
import type { JobRuntime } from './runtime'

/** What a job has spent, and the larger of its token and cost shares of the budgets (0 without budgets). */
export function jobSpend(job: JobRuntime): { tokens: number; cost: number; share: number } {
  const { job_token_budget: tokenBudget, job_cost_budget: costBudget } = job.settings
  let tokens = 0
  let cost = 0
  for (const agent of job.agents.values()) {
    tokens += agent.usage.input_tokens + agent.usage.output_tokens
    cost += agent.costUsd ?? 0
  }
  const share = Math.max(tokenBudget ? tokens / tokenBudget : 0, costBudget ? cost / costBudget : 0)
  return { tokens, cost, share }
}

/** The job's usage and cost: the sum over its agents (what `job.end` carries). */
export function jobUsage(job: JobRuntime): { usage: Usage; cost: number | null } {
  let usage = emptyUsage()
  let cost: number | null = null
  for (const agent of job.agents.values()) {
    usage = addUsage(usage, agent.usage)
    cost = addCost(cost, agent.costUsd)
  }
  return { usage, cost }
}

/**
 * After a model call: the `budget.warning` to record once the job passes 80 % of a cap, and
 * whether it just reached 100 % (then every live agent stops with `token_budget`). Each happens
 * once per job; the flags on the job remember it.
 */
export function budgetStep(job: JobRuntime): { warning: Record<string, unknown> | null; exceeded: boolean } {
  const { job_token_budget: tokenBudget, job_cost_budget: costBudget } = job.settings
  if (tokenBudget === null && costBudget === null) return { warning: null, exceeded: false }
  const { tokens, cost, share } = jobSpend(job)
  let warning: Record<string, unknown> | null = null
  if (share >= 0.8 && !job.budgetWarned) {
    job.budgetWarned = true
    warning = { tokens, cost_usd: cost, token_budget: tokenBudget, cost_budget: costBudget, share }
  }
  const exceeded = share >= 1 && !job.overBudget
  if (exceeded) job.overBudget = true
  return { warning, exceeded }
}
