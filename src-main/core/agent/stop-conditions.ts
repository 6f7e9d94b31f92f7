import type { Profile } from '../job/profiles'
import type { RunStats } from './run-stats'

/** A hard limit checked before each model call: a stop with its reason and a summary, or nothing. */
export type StopCondition = (
  stats: RunStats,
  profile: Profile,
) => { terminal_reason: 'max_steps' | 'token_budget'; summary: string } | undefined

export const stepLimit: StopCondition = (stats, profile) =>
  stats.steps >= profile.max_steps
    ? { terminal_reason: 'max_steps', summary: `stopped: reached max_steps (${profile.max_steps}) before finishing` }
    : undefined

export const tokenBudget: StopCondition = (stats, profile) =>
  profile.total_token_budget !== null && stats.totalTokens >= profile.total_token_budget
    ? {
        terminal_reason: 'token_budget',
        summary: `stopped: used ${stats.totalTokens} tokens of a ${profile.total_token_budget} token budget`,
      }
    : undefined

export const defaultStopConditions: StopCondition[] = [stepLimit, tokenBudget]
