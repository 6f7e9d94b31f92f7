import { describe, expect, it } from 'vitest'
import { defaultPrices } from '../providers/pricing'
import {
  checkNewJob,
  defaultNewJob,
  fieldErrors,
  jobSettingsOf,
  newJobSchema,
  rememberedSettings,
  type NewJob,
  type NewJobInput,
} from './job-form'

/** The new-job schema's sandbox, network and runaway-guard fields, and the settings a job gets from them. */
const job = (overrides: Partial<NewJobInput> = {}): NewJobInput => ({
  ...defaultNewJob(),
  task: 'Find where tax is computed',
  ...overrides,
})
const errorsOf = (input: unknown) => {
  const parsed = newJobSchema.safeParse(input)
  return parsed.success ? {} : fieldErrors(parsed.error)
}

describe('the sandbox and network fields', () => {
  it('are off by default, and a client that leaves them out gets them off', () => {
    const {
      allow_network: _network,
      no_sandbox: _sandbox,
      no_sandbox_confirmed: _confirmed,
      max_spawns_per_turn: _turn,
      max_spawns_per_minute: _minute,
      ...older
    } = job()
    expect(newJobSchema.parse(older)).toMatchObject({
      allow_network: false,
      no_sandbox: false,
      no_sandbox_confirmed: false,
      max_spawns_per_turn: 10,
      max_agents: 200,
      max_spawns_per_minute: 60,
    })
  })

  it('refuses no_sandbox without its confirmation, beside the confirmation', () => {
    expect(errorsOf(job({ no_sandbox: true }))).toEqual({
      no_sandbox_confirmed: expect.stringContaining('I understand commands can read and write anything I can'),
    })
    expect(errorsOf(job({ no_sandbox: true, no_sandbox_confirmed: true }))).toEqual({})
    expect(errorsOf(job({ allow_network: true }))).toEqual({})
  })

  it('reports the missing confirmation with the other fields’ errors, not instead of them', () => {
    expect(Object.keys(errorsOf(job({ task: '', no_sandbox: true, max_spawns_per_turn: 1.5 }))).sort()).toEqual([
      'max_spawns_per_turn',
      'no_sandbox_confirmed',
      'task',
    ])
  })
})

describe('the spawn guards', () => {
  it.each([
    ['max_spawns_per_turn', -1, 'at least 0 (0: no limit)'],
    ['max_spawns_per_turn', 2.5, 'must be a whole number'],
    ['max_spawns_per_turn', 1001, 'at most 1,000'],
    ['max_spawns_per_minute', -3, 'at least 0 (0: no limit)'],
    ['max_spawns_per_minute', 10_001, 'at most 10,000'],
    ['max_spawns_per_minute', Number.NaN, 'must be a whole number'],
  ])('%s = %d: %s', (field, value, message) => {
    expect(errorsOf(job({ [field]: value }))).toEqual({ [field]: message })
  })

  it('takes 0 as off', () => {
    expect(newJobSchema.parse(job({ max_spawns_per_turn: 0, max_spawns_per_minute: 0 }))).toMatchObject({
      max_spawns_per_turn: 0,
      max_spawns_per_minute: 0,
    })
  })
})

describe('jobSettingsOf', () => {
  it('spells out every guard in the settings the trace records', () => {
    const parsed = newJobSchema.parse(
      job({
        allow_network: true,
        no_sandbox: true,
        no_sandbox_confirmed: true,
        agent_timeout_s: 90,
        max_spawns_per_turn: 4,
        max_spawns_per_minute: 0,
        restart_crashed: 2,
        max_agents: 50,
        on_budget: 'stop',
        rate_limit_wait_minutes: 0.5,
      }),
    )
    expect(jobSettingsOf(parsed)).toEqual({
      provider: 'scripted',
      model: 'scripted',
      light_model: null,
      base_url: null,
      profile: 'general',
      max_depth: 1,
      max_concurrent_children: 3,
      job_token_budget: null,
      job_cost_budget: null,
      agent_timeout_ms: 90_000,
      max_spawns_per_turn: 4,
      max_spawns_per_minute: 0,
      restart_crashed: 2,
      max_agents: 50,
      on_budget: 'stop',
      rate_limit_wait_minutes: 0.5,
      allow_network: true,
      no_sandbox: true,
    })
    expect(jobSettingsOf(defaultNewJob())).toMatchObject({
      agent_timeout_ms: null,
      allow_network: false,
      no_sandbox: false,
      max_spawns_per_turn: 10,
      max_spawns_per_minute: 60,
    })
  })
})

describe('rememberedSettings', () => {
  it('keeps the network choice and the limits, never the task or the sandbox opt-out', () => {
    const started: NewJob = {
      ...defaultNewJob(),
      task: 'x',
      allow_network: true,
      no_sandbox: true,
      no_sandbox_confirmed: true,
      max_spawns_per_turn: 3,
    }
    const remembered = rememberedSettings(started)
    expect(remembered).not.toHaveProperty('task')
    expect(remembered).toMatchObject({ allow_network: true, no_sandbox: false, no_sandbox_confirmed: false, max_spawns_per_turn: 3 })
  })
})

it('checkNewJob names every unpriced model a cost budget would spend on', () => {
  const errors = checkNewJob(
    { ...defaultNewJob(), task: 'x', provider: 'openai', model: 'gpt-4o', light_model: 'house-7b', job_cost_budget: 1 },
    { prices: defaultPrices, profiles: ['general'] },
  )
  expect(errors).toEqual({ job_cost_budget: expect.stringMatching(/^"house-7b" has no price, so a cost budget cannot be enforced/) })
})
