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
    ['the job granted 60 spawns in the last minute', { spawnsLastMinute: 60 }, /at most 60 spawns per minute/],
  ])('denies when %s', (_case, change, reason) => {
    const decision = decideSpawn({ ...allowed, ...change })
    expect(decision.kind).toBe('deny')
    expect(decision.kind === 'deny' && decision.reason).toMatch(reason)
  })

  it('lets 0 turn each runaway guard off', () => {
    expect(decideSpawn({ ...allowed, maxSpawnsPerTurn: 0, spawnsThisTurn: 500, maxSpawnsPerMinute: 0, spawnsLastMinute: 5000 })).toEqual({
      kind: 'start',
    })
  })

  it('denies a stopping parent even while spawning is paused (it would otherwise be held)', () => {
    expect(decideSpawn({ ...allowed, paused: true, parentStopping: true }).kind).toBe('deny')
  })
})
