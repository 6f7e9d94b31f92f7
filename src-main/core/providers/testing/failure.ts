import { expect } from 'vitest'
import { ProviderError } from '../errors'

/** For tests: the ProviderError a call fails with (the test fails if it succeeds or throws anything else). */
export const failure = (promise: Promise<unknown>): Promise<ProviderError> =>
  promise.then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(ProviderError)
      return error as ProviderError
    },
  )
