import { describe, expect, it, vi } from 'vitest'
import { ApiFailure } from './api/errors'
import { ArborError } from './errors'
import { ProviderError } from './providers/errors'
import { DatabaseTooNewError, StoreError, TraceParseError } from './store/errors'

describe('ArborError', () => {
  it('recognises an error by its markers, not its constructor', async () => {
    // Another copy of the module, as another bundle or realm would load it: instanceof fails there.
    vi.resetModules()
    const copy = await import('./errors')
    expect(copy.ArborError).not.toBe(ArborError)
    const fromCopy = new copy.ArborError('store', 'from the other copy')
    expect(fromCopy instanceof ArborError).toBe(false)
    expect(ArborError.isInstance(fromCopy)).toBe(true)
    expect(fromCopy.code).toBe('store')
  })

  it("answers for a class's own errors and its subclasses', not its siblings' or its parent's", () => {
    const tooNew = new DatabaseTooNewError('arbor.db', 9, 8)
    expect(DatabaseTooNewError.isInstance(tooNew)).toBe(true)
    expect(StoreError.isInstance(tooNew)).toBe(true)
    expect(ArborError.isInstance(tooNew)).toBe(true)
    expect(TraceParseError.isInstance(tooNew)).toBe(false)
    expect(ProviderError.isInstance(tooNew)).toBe(false)
    expect(DatabaseTooNewError.isInstance(new StoreError('plain store error'))).toBe(false)
    expect(tooNew.code).toBe('database_too_new')
    expect(new StoreError('plain').code).toBe('store')
  })

  it('does not take a plain Error, or an object that only looks like one, for an Arbor error', () => {
    expect(ArborError.isInstance(new Error('plain'))).toBe(false)
    expect(ApiFailure.isInstance({ code: 'not_found', message: 'job x not found' })).toBe(false)
    expect(ArborError.isInstance(null)).toBe(false)
    expect(ArborError.isInstance('internal')).toBe(false)
  })

  it('refuses isInstance on a subclass that has no marker of its own', () => {
    class Unmarked extends ProviderError {}
    expect(() => Unmarked.isInstance(new ProviderError('other', 'x'))).toThrow('Unmarked needs a marker of its own')
  })
})
