import { describe, expect, it } from 'vitest'
import { nextSlice, revealPace } from './reveal'

describe('nextSlice', () => {
  it('grows the slice while slices stay quick, at most doubling it', () => {
    expect(nextSlice(24, 10, 200)).toBe(48)
    expect(nextSlice(24, revealPace.sliceTargetMs, 200)).toBe(24)
    expect(nextSlice(revealPace.maxSlice, 1, 5000)).toBe(revealPace.maxSlice)
  })

  it('shrinks it in proportion when slices run long, at most halving it, never below the floor', () => {
    expect(nextSlice(24, revealPace.sliceTargetMs * 1.5, 100)).toBe(16)
    expect(nextSlice(24, 10_000, 100)).toBe(12)
    expect(nextSlice(revealPace.minSlice, 10_000, 50)).toBe(revealPace.minSlice)
  })

  it('never takes more than maxSlices slices for a burst, however slow the slices', () => {
    expect(nextSlice(revealPace.minSlice, 10_000, 2000)).toBe(Math.ceil(2000 / revealPace.maxSlices))
  })
})
