import { describe, expect, it } from 'vitest'
import { commonPrefix, moveHighlight, relativeTime, splitFolder, tabCompletion } from './path-completion'

describe('path completion', () => {
  const entries = ['/home/me/code/shop/', '/home/me/code/shopify/']

  it('finds the shared prefix of the suggestions', () => {
    expect(commonPrefix(entries)).toBe('/home/me/code/shop')
    expect(commonPrefix([])).toBe('')
    expect(commonPrefix(['/a/', '/b/'])).toBe('/')
  })

  it('completes with Tab: the highlighted row, else the shared part, else the first row', () => {
    expect(tabCompletion('/home/me/code/sh', entries, 1)).toBe('/home/me/code/shopify/')
    expect(tabCompletion('/home/me/code/sh', entries, -1)).toBe('/home/me/code/shop')
    expect(tabCompletion('/home/me/code/shop', entries, -1)).toBe('/home/me/code/shop/')
    expect(tabCompletion('/home/me/code/shop/', ['/home/me/code/shop/'], -1)).toBeNull()
    expect(tabCompletion('/x', [], -1)).toBeNull()
  })

  it('moves the highlight with the arrow keys, through "none" at either end', () => {
    expect(moveHighlight(-1, 3, 1)).toBe(0)
    expect(moveHighlight(-1, 3, -1)).toBe(2)
    expect(moveHighlight(2, 3, 1)).toBe(-1)
    expect(moveHighlight(0, 3, -1)).toBe(-1)
    expect(moveHighlight(0, 0, 1)).toBe(-1)
  })

  it('splits a folder into its parent and name', () => {
    expect(splitFolder('/home/me/code/shop/')).toEqual({ parent: '/home/me/code/', name: 'shop/' })
    expect(splitFolder('shop')).toEqual({ parent: '', name: 'shop' })
  })
})

describe('relativeTime', () => {
  const now = Date.parse('2025-03-10T12:00:00Z')
  it('says how long ago a project was opened', () => {
    expect(relativeTime('2025-03-10T11:59:30Z', now)).toBe('just now')
    expect(relativeTime('2025-03-10T11:30:00Z', now)).toBe('30 min ago')
    expect(relativeTime('2025-03-10T07:00:00Z', now)).toBe('5 h ago')
    expect(relativeTime('2025-03-09T10:00:00Z', now)).toBe('yesterday')
    expect(relativeTime('2025-03-01T12:00:00Z', now)).toBe('9 days ago')
    expect(relativeTime('2024-12-01T12:00:00Z', now)).toBe('2024-12-01')
    expect(relativeTime('nonsense', now)).toBe('')
  })
})
