import { describe, expect, it } from 'vitest'
import { ProfileError, builtinProfiles, resolveModel, validateProfile, type Profile } from './profiles'
import { describeProfiles } from './profiles/describe'

const worker = builtinProfiles.worker!
const refusal = (profile: Profile): string => {
  try {
    validateProfile(profile)
  } catch (error) {
    expect(ProfileError.isInstance(error)).toBe(true)
    return (error as Error).message
  }
  throw new Error(`profile "${profile.name}" was accepted`)
}

describe('the built-in profiles (product.md §2)', () => {
  it('match the table', () => {
    const row = (profile: Profile) => [
      profile.max_steps,
      profile.context_token_budget,
      profile.total_token_budget,
      profile.model,
      profile.result_contract,
      profile.can_delegate,
    ]
    expect(row(builtinProfiles.general!)).toEqual([50, null, null, 'main', 'text', true])
    expect(row(builtinProfiles.explore!)).toEqual([12, 16_000, 32_000, 'light', 'explore', false])
    expect(row(builtinProfiles.worker!)).toEqual([30, 64_000, 200_000, 'main', 'text', false])
    expect(builtinProfiles.general!.tools).toEqual([
      'read_file',
      'list_files',
      'search',
      'write_file',
      'edit_file',
      'bash',
      'task',
      'attempt_completion',
    ])
    expect(builtinProfiles.explore!.tools).toEqual(['read_file', 'list_files', 'search', 'attempt_completion'])
    expect(builtinProfiles.worker!.tools).toEqual([
      'read_file',
      'list_files',
      'search',
      'write_file',
      'edit_file',
      'bash',
      'attempt_completion',
    ])
  })

  it('pass validation unchanged', () => {
    for (const profile of Object.values(builtinProfiles)) expect(validateProfile(profile)).toEqual(profile)
  })
})

describe('validateProfile', () => {
  it('always adds attempt_completion, once', () => {
    expect(validateProfile({ ...worker, tools: ['read_file', 'read_file'] }).tools).toEqual(['read_file', 'attempt_completion'])
  })

  it('refuses task without can_delegate, naming the profile', () => {
    expect(refusal({ ...worker, name: 'helper', tools: ['read_file', 'task'] })).toBe(
      'profile "helper" is invalid: tools: lists "task" but the profile may not delegate (set can_delegate: true, or remove task)',
    )
    expect(validateProfile({ ...worker, tools: ['task'], can_delegate: true }).tools).toEqual(['task', 'attempt_completion'])
  })

  it('refuses a writing tool in a read-only profile', () => {
    const explore = builtinProfiles.explore!
    expect(refusal({ ...explore, name: 'looker', tools: ['read_file', 'bash', 'edit_file'] })).toBe(
      'profile "looker" is invalid: tools: is read-only (its result contract is explore) but lists the writing tool "bash", "edit_file"',
    )
    expect(refusal({ ...worker, name: 'reviewer', read_only: true })).toMatch(
      /^profile "reviewer" is invalid: tools: is read-only \(it is declared read-only\) but lists the writing tool "write_file", "edit_file", "bash"$/,
    )
  })

  it('refuses unknown tools and bad limits, each with its field', () => {
    expect(refusal({ ...worker, name: 'odd', tools: ['read_file', 'teleport'], max_steps: 0, total_token_budget: 1.5 })).toBe(
      'profile "odd" is invalid: tools: unknown tool "teleport"; known tools: read_file, list_files, search, write_file, edit_file, bash, task, attempt_completion; ' +
        'max_steps: must be a positive integer; total_token_budget: must be a positive integer or null',
    )
    expect(refusal({ ...worker, name: 'has space' })).toMatch(/^profile "has space" is invalid: name: /)
  })
})

describe('resolveModel (the light fallback)', () => {
  it('uses the light model when configured, the main model otherwise, and a model id as given', () => {
    expect(resolveModel('light', { model: 'big', light_model: 'small' })).toBe('small')
    expect(resolveModel('light', { model: 'big', light_model: null })).toBe('big')
    expect(resolveModel('light', { model: 'big' })).toBe('big')
    expect(resolveModel('main', { model: 'big', light_model: 'small' })).toBe('big')
    expect(resolveModel('gpt-4o-mini', { model: 'big', light_model: 'small' })).toBe('gpt-4o-mini')
  })
})

describe('describeProfiles', () => {
  it('lists each profile with its description, tools and model, for the task tool', () => {
    const text = describeProfiles(builtinProfiles, { exclude: ['general'] })
    expect(text).toBe(
      [
        'Available subagent types (use the name as subagent_type):',
        '- explore: Read-only investigation of the repository; returns one explore JSON object. (tools: read_file, list_files, search; model: light; returns explore JSON)',
        '- worker: Does a self-contained change with every tool but task. (tools: read_file, list_files, search, write_file, edit_file, bash; model: main)',
      ].join('\n'),
    )
    expect(describeProfiles({})).toBe('No subagent types are available.')
  })
})
