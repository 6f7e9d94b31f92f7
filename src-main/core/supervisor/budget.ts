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
