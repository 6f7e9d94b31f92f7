import { describe, expect, it } from 'vitest'
import { Redactor, redactedMark } from './redact'

describe('Redactor', () => {
  const key = 'sk-test-abcdef123456'
  const redactor = new Redactor([key, null, undefined, 'short', `${key}-longer-variant`])

  it('replaces every known key in every string of a value, keys of objects included', () => {
    const value = { output: `a ${key} b ${key}`, nested: [{ [key]: `x${key}-longer-variant` }], n: 3, flag: true, none: null }
    expect(redactor.value(value)).toEqual({
      output: `a ${redactedMark} b ${redactedMark}`,
      nested: [{ [redactedMark]: `x${redactedMark}` }],
      n: 3,
      flag: true,
      none: null,
    })
  })

  it('ignores keys too short to be told from ordinary text, and returns the value itself with no keys', () => {
    expect(redactor.text('a short word')).toBe('a short word')
    const value = { a: 'b' }
    expect(new Redactor([]).value(value)).toBe(value)
  })
})
