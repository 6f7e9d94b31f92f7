import { describe, expect, it } from 'vitest'
import { builtinProfiles } from '../job/profiles'
import { decideSpawn, type SpawnPolicyInput } from './spawn-policy'

const general = builtinProfiles.general!
const allowed: SpawnPolicyInput = {
  jobActive: true,
  overBudget: false,
  parentProfile: general,
  parentDepth: 0,
  childProfile: builtinProfiles.explore,
  requestedProfile: 'explore',
  availableProfiles: Object.keys(builtinProfiles),
  maxDepth: 2,
  paused: false,
  runningChildren: 0,
  maxConcurrentChildren: 3,
  parentStopping: false,
  spawnsThisTurn: 0,
  maxSpawnsPerTurn: 10,
  spawnsLastMinute: 0,
  maxSpawnsPerMinute: 60,
  agentsInJob: 0,
  maxAgents: 200,
  userDecides: false,
}

describe('decideSpawn', () => {
  it('starts a spawn nothing refuses', () => {
    expect(decideSpawn(allowed)).toEqual({ kind: 'start' })
  })

  it.each<[string, Partial<SpawnPolicyInput>, RegExp]>([
    ['the job is over budget', { overBudget: true }, /over its token or cost budget/],
    ['the parent is being stopped (a kill collecting its subtree)', { parentStopping: true }, /requesting agent is being stopped/],
    ['the parent was told to wrap up', { parentWrappingUp: true }, /asked you to wrap up: start no new subagent/],
    ['the parent asked for its 11th child this turn', { spawnsThisTurn: 10 }, /at most 10 spawns per turn \(max_spawns_per_turn\)/],
    ['the job has its 200 subagents and nobody can allow more', { agentsInJob: 200 }, /started 200 subagents, its limit \(max_agents\)/],
    ['the job granted 60 spawns in the last minute', { spawnsLastMinute: 60 }, /at most 60 spawns per minute/],
  ])('denies when %s', (_case, change, reason) => {
    const decision = decideSpawn({ ...allowed, ...change })
    expect(decision.kind).toBe('deny')
    expect(decision.kind === 'deny' && decision.reason).toMatch(reason)
  })

  it('lets 0 turn each runaway guard and the agent cap off', () => {
    const off = { maxSpawnsPerTurn: 0, spawnsThisTurn: 500, maxSpawnsPerMinute: 0, spawnsLastMinute: 5000, maxAgents: 0, agentsInJob: 9000 }
    expect(decideSpawn({ ...allowed, ...off })).toEqual({ kind: 'start' })
  })

  it('holds a spawn past max_agents or max_spawns_per_turn for the user where one can decide, naming the limit', () => {
    expect(decideSpawn({ ...allowed, userDecides: true, agentsInJob: 199 })).toEqual({ kind: 'start' })
    expect(decideSpawn({ ...allowed, userDecides: true, agentsInJob: 200 })).toEqual({
      kind: 'hold',
      limit: 'max_agents',
      reason: 'job has 200 agents (max_agents)',
    })
    expect(decideSpawn({ ...allowed, userDecides: true, spawnsThisTurn: 10 })).toMatchObject({ kind: 'hold', limit: 'max_spawns_per_turn' })
    // Held by the limit even while paused: resuming must not start it.
    expect(decideSpawn({ ...allowed, userDecides: true, agentsInJob: 200, paused: true })).toMatchObject({ limit: 'max_agents' })
    expect(decideSpawn({ ...allowed, paused: true })).toEqual({ kind: 'hold', reason: 'spawning is paused' })
  })

  it('refuses what the request gets wrong before holding it for a limit: allowing it could not start it', () => {
    const decision = decideSpawn({ ...allowed, userDecides: true, agentsInJob: 200, parentDepth: 2 })
    expect(decision).toMatchObject({ kind: 'deny', reason: expect.stringMatching(/max_depth/) })
  })

  it('denies a stopping parent even while spawning is paused (it would otherwise be held)', () => {
    expect(decideSpawn({ ...allowed, paused: true, parentStopping: true }).kind).toBe('deny')
  })
})
