import type { Profile } from '../job/profiles'

/** What becomes of a `task` call, decided in the order of product.md §4. */
export type SpawnDecision =
  { kind: 'deny'; reason: string } | { kind: 'hold'; reason: string; limit?: HoldingLimit } | { kind: 'queue' } | { kind: 'start' }

/**
 * The job settings whose spawn past them waits for the user (held, shown with Allow and Cancel)
 * where a user can decide, and is refused where none can (`arbor run`).
 */
export type HoldingLimit = 'max_agents' | 'max_spawns_per_turn'

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
  /** Spawns the job granted so far (the root not counted), and the cap (0: none). */
  agentsInJob: number
  maxAgents: number
  /** A user can allow a spawn held by a limit (the app, `arbor serve`); false: it is refused (`arbor run`). */
  userDecides: boolean
}

/**
 * Refusals first (the job or the parent cannot spawn at all, the per-minute guard, what the
 * request itself gets wrong), then the limits a user may lift for one spawn (held, or refused
 * where nobody can decide), then the pause, then the parent's free slots.
 */
export function decideSpawn(input: SpawnPolicyInput): SpawnDecision {
  if (!input.jobActive) return { kind: 'deny', reason: 'the job is no longer running' }
  if (input.overBudget) return { kind: 'deny', reason: 'the job is over its token or cost budget' }
  if (input.parentStopping) return { kind: 'deny', reason: 'the requesting agent is being stopped' }
  if (input.parentWrappingUp) {
    return { kind: 'deny', reason: 'the user asked you to wrap up: start no new subagent, finish with what you have' }
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
  const limit = holdingLimit(input)
  if (limit) return input.userDecides ? { kind: 'hold', reason: limit.held, limit: limit.name } : { kind: 'deny', reason: limit.denied }
  if (input.paused) return { kind: 'hold', reason: 'spawning is paused' }
  if (input.runningChildren >= input.maxConcurrentChildren) return { kind: 'queue' }
  return { kind: 'start' }
}

/**
 * The first limit the spawn is past of those a user may lift for one spawn: what the ghost says
 * while it waits for the user, and what the model reads when nobody can decide.
 */
function holdingLimit(input: SpawnPolicyInput): { name: HoldingLimit; held: string; denied: string } | null {
  if (input.maxSpawnsPerTurn > 0 && input.spawnsThisTurn >= input.maxSpawnsPerTurn) {
    return {
      name: 'max_spawns_per_turn',
      held: `its parent asked for more than ${input.maxSpawnsPerTurn} spawns in one turn (max_spawns_per_turn)`,
      denied: `at most ${input.maxSpawnsPerTurn} spawns per turn (max_spawns_per_turn); wait for these children, then ask again in a later turn`,
    }
  }
  if (input.maxAgents > 0 && input.agentsInJob >= input.maxAgents) {
    return {
      name: 'max_agents',
      held: `job has ${input.agentsInJob} agents (max_agents)`,
      denied: `the job has started ${input.agentsInJob} subagents, its limit (max_agents); do the rest of the work yourself`,
    }
  }
  return null
}
