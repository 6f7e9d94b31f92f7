import type { Profile } from '../job/profiles'

/** What becomes of a `task` call, decided in the order of product.md §4. */
export type SpawnDecision = { kind: 'deny'; reason: string } | { kind: 'hold' } | { kind: 'queue' } | { kind: 'start' }

export interface SpawnPolicyInput {
  jobActive: boolean
  overBudget: boolean
  parentProfile: Profile
  parentDepth: number
  childProfile: Profile | undefined
  requestedProfile: string
  availableProfiles: string[]
  maxDepth: number
  paused: boolean
  runningChildren: number
  maxConcurrentChildren: number
  /** The parent is being stopped (killed, timed out, over budget): it starts nothing new. */
  parentStopping: boolean
  /** The parent was told to wrap up: it finishes with what it has, so it starts nothing new. */
  parentWrappingUp?: boolean
  /** Spawns the parent asked for in this turn before this one, and the cap (0: none). */
  spawnsThisTurn: number
  maxSpawnsPerTurn: number
  /** Spawns granted in the job in the last minute, and the cap (0: none). */
  spawnsLastMinute: number
  maxSpawnsPerMinute: number
}

export function decideSpawn(input: SpawnPolicyInput): SpawnDecision {
  if (!input.jobActive) return { kind: 'deny', reason: 'the job is no longer running' }
  if (input.overBudget) return { kind: 'deny', reason: 'the job is over its token or cost budget' }
  if (input.parentStopping) return { kind: 'deny', reason: 'the requesting agent is being stopped' }
  if (input.parentWrappingUp) {
    return { kind: 'deny', reason: 'the user asked you to wrap up: start no new subagent, finish with what you have' }
  }
  if (input.maxSpawnsPerTurn > 0 && input.spawnsThisTurn >= input.maxSpawnsPerTurn) {
    return {
      kind: 'deny',
      reason: `at most ${input.maxSpawnsPerTurn} spawns per turn (max_spawns_per_turn); wait for these children, then ask again in a later turn`,
    }
  }
  if (input.maxSpawnsPerMinute > 0 && input.spawnsLastMinute >= input.maxSpawnsPerMinute) {
    return {
      kind: 'deny',
      reason: `at most ${input.maxSpawnsPerMinute} spawns per minute in this job (max_spawns_per_minute); try again later or do the work yourself`,
    }
  }
  if (!input.parentProfile.can_delegate) {
    return { kind: 'deny', reason: `profile "${input.parentProfile.name}" may not delegate` }
  }
  if (input.parentDepth + 1 > input.maxDepth) {
    return {
      kind: 'deny',
      reason: `spawn depth limit reached: a child of depth ${input.parentDepth + 1} exceeds max_depth ${input.maxDepth}`,
    }
  }
  if (!input.childProfile) {
    return {
      kind: 'deny',
      reason: `unknown subagent_type "${input.requestedProfile}"; available: ${input.availableProfiles.join(', ')}`,
    }
  }
  if (input.paused) return { kind: 'hold' }
  if (input.runningChildren >= input.maxConcurrentChildren) return { kind: 'queue' }
  return { kind: 'start' }
}
