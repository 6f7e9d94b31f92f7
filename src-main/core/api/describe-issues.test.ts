import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { describeIssues } from './errors'

describe('describeIssues', () => {
  const schema = z.object({ limits: z.record(z.string(), z.number()), name: z.string() }).strict()
  const message = (input: unknown): string => describeIssues(schema.safeParse(input).error!.issues, '(input)')

  it('names plain paths as they are and the value itself by its root', () => {
    expect(message({ limits: {}, name: 1 })).toBe('name: Invalid input: expected string, received number')
    expect(describeIssues(z.string().safeParse(1).error!.issues, '(input)')).toBe(
      '(input): Invalid input: expected string, received number',
    )
  })

  it('quotes as JSON a key that holds the separator, a quote or a dot, in a path and among unknown keys', () => {
    expect(message({ limits: { 'a; b': 'x' }, name: 'n' })).toBe('limits."a; b": Invalid input: expected number, received string')
    expect(message({ limits: {}, name: 'n', 'a"; b': 1, 'c.d': 2 })).toBe('(input): Unrecognized keys: "a\\"; b", "c.d"')
  })
})
