import type { ApiError } from './contract'

/** An error a handler throws on purpose; anything else becomes `internal`. */
export class ApiFailure extends Error {
  constructor(
    readonly code: ApiError['code'],
    message: string,
    /** Field-by-field messages of a refused form. */
    readonly fields?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiFailure'
  }
}

export const notFound = (what: string): ApiFailure => new ApiFailure('not_found', `${what} not found`)
export const conflict = (message: string): ApiFailure => new ApiFailure('conflict', message)
