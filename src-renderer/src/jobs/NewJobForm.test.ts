import { describe, expect, it } from 'vitest'
import type { PriceRow, SettingsView } from '@core/api/contract'
import { defaultNewJob, newJobSchema, type NewJob } from '@core/api/job-form'
import { ApiFailure } from '@core/api/errors'
import { defaultPrices } from '@core/providers/pricing'
import { priceTable } from '../settings/price-table'
import {
  awaitsSandboxConfirmation,
  describePrice,
  dropStaleErrors,
  firstErrorField,
  formFromJob,
  groupProfiles,
  inputFromForm,
  numberFromText,
  footerMessage,
  serverErrors,
  unpricedModels,
  validateNewJob,
  withField,
  withProvider,
  type NewJobForm,
} from './NewJobForm'

const job = (overrides: Partial<NewJob> = {}): NewJob => ({ ...defaultNewJob(), task: 'Find where tax is computed', ...overrides })
const form = (overrides: Partial<NewJobForm> = {}): NewJobForm => ({ ...formFromJob(job()), ...overrides })
const context = { prices: defaultPrices, profiles: ['general', 'explore', 'worker'] }

const settings: SettingsView = {
  providers: [
    {
      id: 'openai',
      label: 'OpenAI',
      key: { source: 'none', env_var: 'OPENAI_API_KEY', last4: null },
      base_url: 'https://api.openai.com/v1',
      base_url_source: 'default',
      default_base_url: 'https://api.openai.com/v1',
      model: 'gpt-5',
      light_model: 'gpt-5-mini',
    },
    {
      id: 'openai_compatible',
      label: 'OpenAI-compatible',
      key: { source: 'none', env_var: null, last4: null },
      base_url: 'http://localhost:1234/v1',
      base_url_source: 'settings',
      default_base_url: 'http://localhost:11434/v1',
      model: 'qwen2.5-coder',
      light_model: null,
    },
  ],
  prices: [],
  key_storage: { encrypted: false, available: true, description: '/tmp/keys.json' },
  max_model_calls: 8,
}

describe('form ↔ NewJob', () => {
  it('round-trips every field of a NewJob through the form', () => {
    const full = job({
      provider: 'openai_compatible',
      base_url: 'http://localhost:11434/v1',
      model: 'llama3.1',
      light_model: 'llama3.2',
      max_depth: 3,
      max_concurrent_children: 5,
      job_token_budget: 2_000_000,
      job_cost_budget: 1.5,
      agent_timeout_s: 600,
      max_spawns_per_turn: 0,
      max_spawns_per_minute: 120,
      auto_approve: true,
      subagent_approvals: 'approve',
      spawn_paused: true,
      allow_network: true,
      no_sandbox: true,
      no_sandbox_confirmed: true,
    })
    expect(newJobSchema.parse(inputFromForm(formFromJob(full)))).toEqual(full)
    expect(newJobSchema.parse(inputFromForm(formFromJob(job())))).toEqual(job())
    // Ask mode: auto-approve is off, the mode says the rest.
    const ask = newJobSchema.parse(inputFromForm(formFromJob(job({ subagent_approvals: 'ask' }))))
    expect(ask).toMatchObject({ auto_approve: false, subagent_approvals: 'ask' })
    // A job from before the three modes: its switch says which.
    expect(formFromJob(job({ auto_approve: true, subagent_approvals: undefined })).subagent_approvals).toBe('approve')
  })

  it('shows null as an empty input and reads an empty input back as null', () => {
    const values = formFromJob(job())
    expect(values).toMatchObject({ base_url: '', light_model: '', job_token_budget: '', job_cost_budget: '', agent_timeout_s: '' })
    expect(inputFromForm(values)).toMatchObject({
      base_url: null,
      light_model: null,
      job_token_budget: null,
      job_cost_budget: null,
      agent_timeout_s: null,
    })
  })

  it('reads numbers: grouped whole numbers, a leading $, and NaN for anything else', () => {
    expect(numberFromText(' 1,000,000 ', { whole: true, empty: null })).toBe(1_000_000)
    expect(numberFromText('1_000', { whole: true, empty: null })).toBe(1000)
    expect(numberFromText('$2.50', { whole: false, empty: null })).toBe(2.5)
    expect(numberFromText('', { whole: false, empty: null })).toBeNull()
    expect(numberFromText('  ', { whole: true, empty: undefined })).toBeUndefined()
    for (const text of ['12abc', '0x10', 'ten', '1.2.3', 'Infinity']) expect(numberFromText(text, { whole: true, empty: null })).toBeNaN()
  })
})

describe('validateNewJob', () => {
  it('accepts the defaults with a task', () => {
    expect(validateNewJob(form(), context)).toEqual({ job: job(), errors: {} })
  })

  it('puts the schema’s message on each field, one per field', () => {
    const { job: parsed, errors } = validateNewJob(
      form({
        task: '  ',
        max_depth: 'two',
        max_concurrent_children: '',
        job_token_budget: '1.5',
        job_cost_budget: 'lots',
        agent_timeout_s: '-3',
      }),
      context,
    )
    expect(parsed).toBeNull()
    expect(errors).toEqual({
      task: 'describe the task',
      max_depth: 'must be a whole number',
      max_concurrent_children: 'must be a whole number',
      job_token_budget: 'must be a whole number',
      job_cost_budget: 'must be a number',
      agent_timeout_s: 'must be more than 0',
    })
  })

  it('checks the spawn guards: whole numbers from 0 (off), and an empty one is refused', () => {
    expect(validateNewJob(form({ max_spawns_per_turn: '0', max_spawns_per_minute: '1,000' }), context)).toMatchObject({
      job: { max_spawns_per_turn: 0, max_spawns_per_minute: 1000 },
      errors: {},
    })
    expect(validateNewJob(form({ max_spawns_per_turn: '-1', max_spawns_per_minute: '' }), context).errors).toEqual({
      max_spawns_per_turn: 'at least 0 (0: no limit)',
      max_spawns_per_minute: 'must be a whole number',
    })
  })

  it('needs the second tick for no sandbox, and gives the network no such step', () => {
    expect(validateNewJob(form({ no_sandbox: true }), context)).toEqual({
      job: null,
      errors: { no_sandbox_confirmed: expect.stringContaining('I understand commands can read and write anything I can') },
    })
    expect(validateNewJob(form({ no_sandbox: true, no_sandbox_confirmed: true }), context).job).toMatchObject({
      no_sandbox: true,
      no_sandbox_confirmed: true,
    })
    expect(validateNewJob(form({ allow_network: true }), context)).toMatchObject({ job: { allow_network: true }, errors: {} })
  })

  it('needs a base URL for an OpenAI-compatible server, and an http(s) one anywhere', () => {
    expect(validateNewJob(form({ provider: 'openai_compatible', model: 'llama3.1' }), context).errors).toEqual({
      base_url: 'an OpenAI-compatible server needs its base URL',
    })
    expect(validateNewJob(form({ provider: 'openai', model: 'gpt-4.1', base_url: 'ftp://x' }), context).errors).toEqual({
      base_url: 'must be an http:// or https:// URL',
    })
  })

  it('runs checkNewJob: an unknown profile, a cost budget on unpriced models', () => {
    const { errors } = validateNewJob(
      form({
        profile: 'reviewer',
        provider: 'openai_compatible',
        base_url: 'http://localhost:11434/v1',
        model: 'llama3.1',
        job_cost_budget: '2',
      }),
      context,
    )
    expect(errors.profile).toBe('no profile "reviewer" in this project')
    expect(errors.job_cost_budget).toMatch(/^"llama3\.1" has no price, so a cost budget cannot be enforced/)
  })

  it('still runs checkNewJob when another field is refused, so every error shows at once', () => {
    const { errors } = validateNewJob(form({ task: '', provider: 'openai', model: 'my-model', job_cost_budget: '5' }), context)
    expect(errors.task).toBe('describe the task')
    expect(errors.job_cost_budget).toMatch(/"my-model" has no price/)
  })

  it('accepts a cost budget when the model is priced (a dated snapshot included)', () => {
    expect(
      validateNewJob(form({ provider: 'openai', model: 'gpt-4o-2024-08-06', light_model: '', job_cost_budget: '$3' }), context).errors,
    ).toEqual({})
  })

  it('skips the profile check when the profiles could not be read', () => {
    expect(validateNewJob(form({ profile: 'reviewer' }), { prices: defaultPrices, profiles: null }).errors).toEqual({})
  })

  it('names the first error in layout order', () => {
    expect(firstErrorField({ job_cost_budget: 'x', model: 'y' })).toBe('model')
    expect(firstErrorField({})).toBeNull()
  })
})

describe('the no-sandbox gate', () => {
  it('holds Start while no sandbox is on and unconfirmed', () => {
    expect(awaitsSandboxConfirmation(form())).toBe(false)
    expect(awaitsSandboxConfirmation(form({ no_sandbox: true }))).toBe(true)
    expect(awaitsSandboxConfirmation(form({ no_sandbox: true, no_sandbox_confirmed: true }))).toBe(false)
  })

  it('asks again after no sandbox is switched off and on', () => {
    const confirmed = withField(withField(form(), 'no_sandbox', true), 'no_sandbox_confirmed', true)
    expect(awaitsSandboxConfirmation(confirmed)).toBe(false)
    const again = withField(withField(confirmed, 'no_sandbox', false), 'no_sandbox', true)
    expect(again).toMatchObject({ no_sandbox: true, no_sandbox_confirmed: false })
    expect(withField(confirmed, 'allow_network', true)).toMatchObject({ no_sandbox_confirmed: true, allow_network: true })
  })
})

describe('prices and models', () => {
  it('turns PriceRow[] into the engine’s PriceTable', () => {
    const rows: PriceRow[] = [{ model: 'local', input: 1, output: 2, cache_read: 0.5, cache_write: 1, source: 'custom' }]
    expect(priceTable(rows)).toEqual({ local: { input: 1, output: 2, cache_read: 0.5, cache_write: 1 } })
  })

  it('shows prices in cents, or as precise as they are', () => {
    expect(describePrice({ input: 2, output: 8, cache_read: 0.5, cache_write: 2 })).toBe('$2.00 in · $8.00 out per 1M tokens')
    expect(describePrice({ input: 0.075, output: 0.6, cache_read: 0, cache_write: 0 })).toBe('$0.075 in · $0.60 out per 1M tokens')
  })

  it('lists the models a job would spend on that have no price', () => {
    expect(unpricedModels({ provider: 'openai', model: 'gpt-4.1', light_model: 'mystery' }, defaultPrices)).toEqual(['mystery'])
    expect(unpricedModels({ provider: 'openai_compatible', model: 'llama', light_model: 'llama' }, defaultPrices)).toEqual(['llama'])
    expect(unpricedModels({ provider: 'scripted', model: 'scripted', light_model: '' }, defaultPrices)).toEqual([])
  })
})

describe('withProvider', () => {
  it('fills the provider’s default models from settings and drops a base URL meant for another provider', () => {
    const compatible = form({ provider: 'openai_compatible', base_url: 'http://localhost:8000/v1', model: 'llama3.1' })
    expect(withProvider(compatible, 'openai', settings)).toMatchObject({
      provider: 'openai',
      model: 'gpt-5',
      light_model: 'gpt-5-mini',
      base_url: '',
    })
  })

  it('takes an OpenAI-compatible server’s base URL from settings', () => {
    expect(withProvider(form(), 'openai_compatible', settings)).toMatchObject({
      model: 'qwen2.5-coder',
      light_model: '',
      base_url: 'http://localhost:1234/v1',
    })
  })

  it('falls back to the built-in defaults, scripted included', () => {
    expect(withProvider(form(), 'anthropic', null)).toMatchObject({ model: 'claude-sonnet-4-6', light_model: 'claude-haiku-4-5' })
    expect(withProvider(form({ provider: 'openai', model: 'gpt-5' }), 'scripted', settings)).toMatchObject({
      model: 'scripted',
      light_model: '',
    })
  })

  it('changes nothing when the provider stays', () => {
    const same = form()
    expect(withProvider(same, 'scripted', settings)).toBe(same)
  })
})

describe('server errors', () => {
  const refused = (message: string, fields?: Record<string, string>) => new ApiFailure('invalid_request', message, fields)

  it('puts field messages beside their fields and points at them', () => {
    const error = refused('startJob: provider: OpenAI has no API key', {
      provider: 'OpenAI has no API key: enter one in Settings ▸ Providers',
    })
    expect(serverErrors(error)).toEqual({
      fields: { provider: 'OpenAI has no API key: enter one in Settings ▸ Providers' },
      message: 'The job was not started: one field needs attention.',
      note: null,
    })
  })

  it('the footer points only at field messages still shown: none once the field is fixed', () => {
    const { fields, note } = serverErrors(refused('bad', { base_url: 'key goes elsewhere', model: 'unknown', form: 'try again' }))
    expect(footerMessage(fields, note)).toBe('The job was not started: 2 fields need attention. try again')
    const fixed = dropStaleErrors(fields, 'base_url')
    expect(footerMessage(fixed, note)).toBe('The job was not started: one field needs attention. try again')
    expect(footerMessage(dropStaleErrors(fixed, 'model'), null)).toBeNull()
  })

  it('keeps the server’s text for fields the form does not have and for errors without fields', () => {
    expect(serverErrors(refused('bad', { form: 'no project open', task: 'describe the task' }))).toEqual({
      fields: { task: 'describe the task' },
      message: 'The job was not started: one field needs attention. no project open',
      note: 'no project open',
    })
    expect(serverErrors(new Error('open a project folder first'))).toEqual({
      fields: {},
      message: 'open a project folder first',
      note: 'open a project folder first',
    })
  })

  it('drops the server errors a change makes stale', () => {
    const errors = { provider: 'no key', job_cost_budget: 'no price', task: 'x' }
    expect(dropStaleErrors(errors, 'base_url')).toEqual({ job_cost_budget: 'no price', task: 'x' })
    expect(dropStaleErrors(errors, 'model')).toEqual({ provider: 'no key', task: 'x' })
    expect(dropStaleErrors(errors, 'task')).toEqual({ provider: 'no key', job_cost_budget: 'no price' })
    expect(dropStaleErrors(errors, 'max_depth')).toBe(errors)
    expect(dropStaleErrors({ no_sandbox_confirmed: 'confirm' }, 'no_sandbox')).toEqual({})
  })
})

it('groups profiles: built-ins, then the project’s own', () => {
  const profile = (name: string, source: string) => ({ name, source, description: '', model: 'main', can_delegate: false })
  expect(
    groupProfiles([profile('general', 'builtin'), profile('reviewer', '.arbor/agents/reviewer.md'), profile('explore', 'builtin')]),
  ).toEqual({
    builtin: [profile('general', 'builtin'), profile('explore', 'builtin')],
    project: [profile('reviewer', '.arbor/agents/reviewer.md')],
  })
})
