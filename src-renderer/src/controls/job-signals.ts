import type { AgentNode, JobSettings } from '@core/trace/model'

/** The larger of tokens/token budget and cost/cost budget, as the supervisor measures it; null without budgets. */
export function budgetShare(settings: JobSettings | undefined, tokens: number, cost: number | null): number | null {
  const tokenBudget = settings?.job_token_budget ?? null
  const costBudget = settings?.job_cost_budget ?? null
  if (!tokenBudget && !costBudget) return null
  return Math.max(tokenBudget ? tokens / tokenBudget : 0, costBudget ? (cost ?? 0) / costBudget : 0)
}

/** The budget warning pill's share: from a `budget.warning` event, or the totals once they pass 80 %. */
export function warningShare(eventShare: number | undefined, share: number | null): number | null {
  const best = Math.max(eventShare ?? 0, share ?? 0)
  return best >= 0.8 ? best : null
}

export type StopKind = 'job_token_budget' | 'job_cost_budget' | 'agent_token_budget' | 'timeout'

export interface StopReason {
  kind: StopKind
  text: string
  /** The job itself stopped (its root did), not only some subagents. */
  job: boolean
}

const isCapped = (agent: AgentNode): boolean => agent.terminal_reason === 'token_budget' || agent.terminal_reason === 'timeout'

/**
 * Why agents of the job were stopped by a cap: the job's token or cost budget (every live agent
 * then ends with terminal reason `token_budget`; the larger share says which budget), an agent's
 * own token budget, or a timeout. Null when no agent ended that way.
 */
export function stopReasonOf(input: {
  settings: JobSettings | undefined
  tokens: number
  cost: number | null
  agents: readonly AgentNode[]
}): StopReason | null {
  const capped = input.agents.filter(isCapped)
  if (capped.length === 0) return null
  const root = input.agents.find((agent) => agent.parent_id === null)
  const rootCapped = root !== undefined && isCapped(root)
  const tokenBudget = input.settings?.job_token_budget ?? null
  const costBudget = input.settings?.job_cost_budget ?? null
  const tokenShare = tokenBudget ? input.tokens / tokenBudget : 0
  const costShare = costBudget ? (input.cost ?? 0) / costBudget : 0
  if (capped.some((agent) => agent.terminal_reason === 'token_budget') && Math.max(tokenShare, costShare) >= 1) {
    const cost = costShare > tokenShare
    return {
      kind: cost ? 'job_cost_budget' : 'job_token_budget',
      text: `Stopped: job ${cost ? 'cost' : 'token'} budget reached`,
      job: rootCapped,
    }
  }
  if (rootCapped) {
    return root.terminal_reason === 'timeout'
      ? { kind: 'timeout', text: 'Stopped: the root agent timed out', job: true }
      : { kind: 'agent_token_budget', text: 'Stopped: the root agent’s token budget reached', job: true }
  }
  const timeouts = capped.filter((agent) => agent.terminal_reason === 'timeout')
  const kind: StopKind = timeouts.length > 0 ? 'timeout' : 'agent_token_budget'
  const shown = timeouts.length > 0 ? timeouts : capped
  const who = shown.length === 1 ? shown[0]!.label : `${shown.length} subagents`
  return { kind, text: kind === 'timeout' ? `${who} timed out` : `${who} stopped: token budget reached`, job: false }
}
