import { describe, expect, it } from 'vitest'
import { nextSlice, revealPace, shownAtOnce } from './reveal'

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

describe('shownAtOnce', () => {
  it('shows a growth of one slice or less at once, and a shrink', () => {
    expect(shownAtOnce(200, 202, 24)).toBe(202)
    expect(shownAtOnce(200, 150, 24)).toBe(150)
    expect(shownAtOnce(200, 200, 24)).toBe(200)
  })

  it('shows the first slice of a tree appearing at once, the rest later', () => {
    expect(shownAtOnce(0, 200, revealPace.firstSlice)).toBe(revealPace.firstSlice)
    expect(shownAtOnce(0, 10, revealPace.firstSlice)).toBe(10)
  })

  it('leaves a bigger growth of a shown tree to the next slices', () => {
    expect(shownAtOnce(48, 200, 24)).toBe(48)
  })
})
