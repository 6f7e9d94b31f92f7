import { describe, expect, it } from 'vitest'
import { groupDigits } from './digits'

describe('groupDigits', () => {
  it('groups an integer as toLocaleString("en") does', () => {
    const values = [0, 7, 42, 999, 1000, 1001, 12_345, 100_000, 999_999, 1_000_000, 1e9, Number.MAX_SAFE_INTEGER]
    for (const value of [...values, ...values.filter(Boolean).map((each) => -each)])
      expect(groupDigits(value)).toBe(value.toLocaleString('en'))
    for (let value = 1; value < 1e15; value = value * 7 + 3) expect(groupDigits(value)).toBe(value.toLocaleString('en'))
  })

  it('leaves what is not a safe integer to toLocaleString', () => {
    expect(groupDigits(1234.5)).toBe('1,234.5')
    expect(groupDigits(Number.NaN)).toBe('NaN')
  })
})
