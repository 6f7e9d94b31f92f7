import { describe, expect, it } from 'vitest'
import { emptyUsage, type Usage } from '../trace/usage'
import { costOf, priceFor } from './pricing'

const usage = (more: Partial<Usage>): Usage => ({ ...emptyUsage(), ...more })

describe('the price table', () => {
  it('prices a known model: uncached input, cache reads, cache writes and output each at their rate', () => {
    const cost = costOf(
      'claude-sonnet-4',
      usage({ input_tokens: 1_000_000, cache_read_tokens: 400_000, cache_write_tokens: 100_000, output_tokens: 200_000 }),
    )
    // 500k uncached × $3 + 400k × $0.30 + 100k × $3.75 + 200k × $15, per million
    expect(cost).toBeCloseTo(1.5 + 0.12 + 0.375 + 3, 10)
    expect(costOf('gpt-4o-mini', usage({ input_tokens: 2_000_000, cache_read_tokens: 1_000_000, output_tokens: 1_000_000 }))).toBeCloseTo(
      0.15 + 0.075 + 0.6,
      10,
    )
  })

  it('matches dated snapshots and -latest aliases to their model', () => {
    expect(priceFor('gpt-4o-2024-08-06')).toEqual(priceFor('gpt-4o'))
    expect(priceFor('claude-sonnet-4-20250514')).toEqual(priceFor('claude-sonnet-4'))
    expect(priceFor('claude-opus-4-1-20250805')).toEqual(priceFor('claude-opus-4-1'))
    expect(priceFor('claude-3-5-haiku-latest')).toEqual(priceFor('claude-3-5-haiku'))
    expect(priceFor('gpt-5-2025-08-07')?.output).toBe(10)
  })

  it('prefers an exact id whose price differs from its family', () => {
    expect(priceFor('gpt-4o-2024-05-13')?.input).toBe(5)
    expect(priceFor('gpt-4o')?.input).toBe(2.5)
  })

  it('does not confuse a sibling model with a snapshot', () => {
    expect(priceFor('gpt-5-mini')?.input).toBe(0.25)
    expect(priceFor('gpt-4o-mini-2024-07-18')?.input).toBe(0.15)
    expect(priceFor('claude-opus-4-5-20251101')?.input).toBe(5)
    expect(priceFor('claude-opus-4-20250514')?.input).toBe(15)
  })

  it('gives unknown models no cost rather than a guess', () => {
    for (const model of ['llama3.1:8b', 'openai/gpt-4o', 'gpt-4o-custom', 'claude-sonnet-9', 'gpt-5.9']) {
      expect(costOf(model, usage({ input_tokens: 1000, output_tokens: 1000 }))).toBeNull()
    }
  })

  it('uses an edited table when given one', () => {
    const table = { 'my-model': { input: 1, cache_read: 1, cache_write: 1, output: 2 } }
    expect(costOf('my-model', usage({ input_tokens: 1_000_000, output_tokens: 1_000_000 }), table)).toBe(3)
    expect(costOf('gpt-4o', usage({ input_tokens: 1 }), table)).toBeNull()
  })
})
