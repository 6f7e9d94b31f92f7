import { groupDigits } from '../digits'
import { defaultOnBudget, type OnBudget } from '../trace/model'
import { addCost, addUsage, emptyUsage, type Usage } from '../trace/usage'
import { subtreePostOrder, type AgentRuntime, type JobRuntime } from './runtime'

/**
 * The arithmetic of budgets: what a job or a branch (an agent's subtree) has spent against its
 * token and cost caps, and whether an agent may go on. Pure: budget-holds.ts acts on it.
 */

/** A token cap and a cost cap in USD; null: no cap. A type, so it fits the trace's loose schemas. */
export type BudgetCaps = {
  tokens: number | null
  cost_usd: number | null
}

export interface Spend {
  tokens: number
  cost: number
}

/** What a job does when a cap is reached: pause (the app's default) or stop. */
export const onBudgetOf = (job: JobRuntime): OnBudget => job.settings.on_budget ?? defaultOnBudget

export const jobCaps = (job: JobRuntime): BudgetCaps => ({ tokens: job.settings.job_token_budget, cost_usd: job.settings.job_cost_budget })

/** The larger of the token and cost shares of `caps` that `spend` is (0 without caps). */
export const shareOf = (spend: Spend, caps: BudgetCaps): number =>
  Math.max(caps.tokens ? spend.tokens / caps.tokens : 0, caps.cost_usd ? spend.cost / caps.cost_usd : 0)

const spendOf = (agents: Iterable<AgentRuntime>): Spend => {
  let tokens = 0
  let cost = 0
  for (const agent of agents) {
    tokens += agent.usage.input_tokens + agent.usage.output_tokens
    cost += agent.costUsd ?? 0
  }
  return { tokens, cost }
}

/** What a job has spent, and the larger of its token and cost shares of the budgets (0 without budgets). */
export function jobSpend(job: JobRuntime): { tokens: number; cost: number; share: number } {
  const spend = spendOf(job.agents.values())
  return { ...spend, share: shareOf(spend, jobCaps(job)) }
}

/** What the agent and all its descendants have spent. */
export const branchSpend = (agent: AgentRuntime): Spend => spendOf(subtreePostOrder(agent))

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
 * whether a job that stops at its cap just reached it (then every live agent stops with
 * `token_budget`). A job that pauses is held at each agent's next step (budgetGate) instead.
 * Each happens once per job (until a raise); the flags on the job remember it.
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
  const exceeded = share >= 1 && !job.overBudget && onBudgetOf(job) === 'stop'
  if (exceeded) job.overBudget = true
  return { warning, exceeded }
}

/** Why an agent waits before its next model call or spawn: the cap it is under that is spent. */
export interface BudgetGate {
  reason: 'job_budget' | 'branch_budget'
  /** What the node and the trace say: which cap, what was spent. */
  message: string
  /** For a branch: the agent whose subtree's cap is spent (the agent itself or an ancestor). */
  branch: AgentRuntime | null
}

/** The agent whose branch cap `agent` is under and that is spent (itself or the nearest such ancestor), or null. */
export function spentBranch(agent: AgentRuntime): AgentRuntime | null {
  for (let at: AgentRuntime | null = agent; at; at = at.parent) {
    if (at.branchBudget && shareOf(branchSpend(at), at.branchBudget) >= 1) return at
  }
  return null
}

/**
 * Whether `agent` must wait for a raise before its next model call or spawn; null when it may go
 * on. The job's cap first, then its branch's. An agent told to wrap up goes on: the user asked it
 * to finish, and its few wrap-up steps go over the cap. A job that stops at its cap never waits
 * for the job's cap (it is stopped instead, see budgetStep) and stops a branch at its cap too.
 */
export function budgetGate(agent: AgentRuntime): BudgetGate | null {
  const job = agent.job
  if (agent.wrapUp || job.overBudget || onBudgetOf(job) === 'stop') return null
  // Summed over the job's agents only when it has a cap: a job without one pays nothing per call.
  const spend = job.settings.job_token_budget !== null || job.settings.job_cost_budget !== null ? jobSpend(job) : null
  if (spend && spend.share >= 1) return { reason: 'job_budget', message: `the job's ${spentCapText(spend, jobCaps(job))}`, branch: null }
  const branch = spentBranch(agent)
  if (!branch?.branchBudget) return null
  const what = branch === agent ? 'its branch' : `the branch of ${branch.label}`
  return { reason: 'branch_budget', message: `${what}: ${spentCapText(branchSpend(branch), branch.branchBudget)}`, branch }
}

/** "token budget (6,000) is spent (6,120 tokens): raise it to go on", for whichever cap is spent. */
function spentCapText(spend: Spend, caps: BudgetCaps): string {
  const overTokens = caps.tokens !== null && spend.tokens >= caps.tokens
  const cap = overTokens
    ? `token budget (${groupDigits(caps.tokens ?? 0)}) is spent (${groupDigits(spend.tokens)} tokens)`
    : `cost budget ($${caps.cost_usd}) is spent ($${spend.cost.toFixed(4)})`
  return `${cap}: raise it to go on`
}

/**
 * Why new caps cannot be set on a job or a branch that has spent `spend`; null when they can. A
 * cap must be above what is spent (a cap at or below it would hold at once); `left`, for a
 * branch, is what the job has left of each cap: the branch may not spend more than that.
 */
export function capsRefusal(spend: Spend, caps: BudgetCaps, left?: BudgetCaps): string | null {
  if (caps.tokens !== null && caps.tokens <= spend.tokens) {
    return `a token budget of ${groupDigits(caps.tokens)} is not above the ${groupDigits(spend.tokens)} tokens already spent`
  }
  if (caps.cost_usd !== null && caps.cost_usd <= spend.cost) {
    return `a cost budget of $${caps.cost_usd} is not above the $${spend.cost.toFixed(4)} already spent`
  }
  if (left?.tokens != null && caps.tokens !== null && caps.tokens - spend.tokens > left.tokens) {
    return `the branch may spend at most the ${groupDigits(left.tokens)} tokens the job has left: set at most ${groupDigits(spend.tokens + left.tokens)}, or raise the job's budget first`
  }
  if (left?.cost_usd != null && caps.cost_usd !== null && caps.cost_usd - spend.cost > left.cost_usd) {
    return `the branch may spend at most the $${left.cost_usd.toFixed(4)} the job has left: set at most $${(spend.cost + left.cost_usd).toFixed(4)}, or raise the job's budget first`
  }
  return null
}

/** What the job has left of each cap (null: no cap); never below 0. */
export function jobLeft(job: JobRuntime): BudgetCaps {
  const caps = jobCaps(job)
  const spend = jobSpend(job)
  return {
    tokens: caps.tokens === null ? null : Math.max(0, caps.tokens - spend.tokens),
    cost_usd: caps.cost_usd === null ? null : Math.max(0, caps.cost_usd - spend.cost),
  }
}
