import type { Profile } from '../job/profiles'

/**
 * What the agent's own limits read: the model calls it has had answered and the tokens they
 * used. It is no account of the run: the agent reports none of it, the supervisor counts steps,
 * usage, cost and tool calls from the calls it makes and the events it records.
 */
export interface RunProgress {
  steps: number
  /** Input and output tokens of the answered calls. */
  tokens: number
}

/** A hard limit checked before each model call: a stop with its reason and a summary, or nothing. */
export type StopCondition = (
  progress: RunProgress,
  profile: Profile,
) => { terminal_reason: 'max_steps' | 'token_budget'; summary: string } | undefined

export const stepLimit: StopCondition = (progress, profile) =>
  progress.steps >= profile.max_steps
    ? { terminal_reason: 'max_steps', summary: `stopped: reached max_steps (${profile.max_steps}) before finishing` }
    : undefined

export const tokenBudget: StopCondition = (progress, profile) =>
  profile.total_token_budget !== null && progress.tokens >= profile.total_token_budget
    ? {
        terminal_reason: 'token_budget',
        summary: `stopped: used ${progress.tokens} tokens of a ${profile.total_token_budget} token budget`,
      }
    : undefined

export const defaultStopConditions: StopCondition[] = [stepLimit, tokenBudget]
