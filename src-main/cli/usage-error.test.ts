import { describe, expect, it } from 'vitest'
import { ArborError } from '../core/errors'
import { JobRefused, UsageError, intOption } from './usage-error'

describe('the CLI errors', () => {
  it('are Arbor errors with a code, each recognised by its own marker and not by the other', () => {
    const usage = new UsageError('--x is not an option')
    const refused = new JobRefused('the job was not started')
    expect([usage.code, refused.code]).toEqual(['usage', 'job_refused'])
    expect([ArborError.isInstance(usage), ArborError.isInstance(refused)]).toEqual([true, true])
    expect([UsageError.isInstance(usage), UsageError.isInstance(refused)]).toEqual([true, false])
    expect([JobRefused.isInstance(refused), JobRefused.isInstance(usage)]).toEqual([true, false])
    // As a copy of the class from another bundle would make it: a plain object with the marker.
    expect(UsageError.isInstance({ [Symbol.for('arbor.error.UsageError')]: true })).toBe(true)
  })

  it('come from option parsing with the option named', () => {
    expect(() => intOption('1.5', 'warm-pool')).toThrow(
      expect.objectContaining({ code: 'usage', message: '--warm-pool must be an integer ≥ 0, got "1.5"' }),
    )
  })
})
