import { describe, expect, it } from 'vitest'
import { sameFields } from './use-fields'

describe('sameFields', () => {
  it('compares field by field with Object.is', () => {
    const agent = { id: 'a' }
    expect(sameFields({ agent, count: 1, cost: null }, { agent, count: 1, cost: null })).toBe(true)
    expect(sameFields({ agent, count: 1 }, { agent: { id: 'a' }, count: 1 })).toBe(false)
    expect(sameFields({ value: Number.NaN }, { value: Number.NaN })).toBe(true)
    expect(sameFields({ value: 0 }, { value: -0 })).toBe(false)
  })
})
