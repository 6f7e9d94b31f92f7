import { ArborError } from '../errors'
import type { ApiError, ApiErrorCode, ApiResult } from './contract'

/**
 * A failed API call, on both sides of the boundary: what a handler throws on purpose (anything
 * else it throws becomes `internal`), and what the renderer's client rejects with, rebuilt from
 * the `{code, message, fields}` that crossed IPC or the WebSocket.
 */
export class ApiFailure extends ArborError<ApiErrorCode> {
  static override readonly marker: symbol = Symbol.for('arbor.error.ApiFailure')

  constructor(
    code: ApiErrorCode,
    message: string,
    /** Field-by-field messages of a refused form. */
    readonly fields?: Record<string, string>,
  ) {
    super(code, message)
    this.name = 'ApiFailure'
  }
}

export const notFound = (what: string): ApiFailure => new ApiFailure('not_found', `${what} not found`)
export const conflict = (message: string): ApiFailure => new ApiFailure('conflict', message)

/** What the client says of an error it cannot show: the details stay in the server's log. */
export const internalErrorMessage = 'Arbor failed unexpectedly (its log has the details)'

/**
 * A thrown value as it may cross to the renderer. An ApiFailure keeps its code and fields; another
 * Arbor error was written for a user and keeps its message under `internal`; anything else (a
 * TypeError, SQLite's or the file system's errors, which can name paths, SQL or keys) is only
 * `internal`, its message left to the log.
 */
export function apiErrorOf(error: unknown): ApiError {
  if (ApiFailure.isInstance(error)) return { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) }
  if (ArborError.isInstance(error)) return { code: 'internal', message: error.message }
  return { code: 'internal', message: internalErrorMessage }
}

const apiErrorCodes: ReadonlySet<string> = new Set<ApiErrorCode>([
  'invalid_request',
  'unknown_method',
  'not_found',
  'conflict',
  'unsupported',
  'internal',
  'disconnected',
])

/** The failure a client rejects with for an `ApiError` it received (checked: it came over a wire). */
export function apiFailureFrom(error: unknown): ApiFailure {
  const record = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  const code = typeof record.code === 'string' && apiErrorCodes.has(record.code) ? (record.code as ApiErrorCode) : 'internal'
  const message = typeof record.message === 'string' && record.message ? record.message : 'malformed error from the server'
  const fields = record.fields
  const fieldsValid = typeof fields === 'object' && fields !== null && Object.values(fields).every((value) => typeof value === 'string')
  return new ApiFailure(code, message, fieldsValid ? { ...(fields as Record<string, string>) } : undefined)
}

/** A result's value, or its error thrown as an ApiFailure. */
export function unwrapResult<T>(result: ApiResult<T>): T {
  if (result?.ok === true) return result.value
  throw apiFailureFrom(result?.ok === false ? result.error : { code: 'internal', message: 'malformed response from the server' })
}

/** What `describeIssues` reads of a zod issue. */
interface SchemaIssue {
  code?: string
  path: PropertyKey[]
  message: string
  keys?: string[]
}

const plainSegment = /^[\w$-]+$/

/**
 * A schema's issues as one message, `path: text; path: text`, `root` naming the value itself.
 * Unambiguous whatever the input's keys hold: a key in a path or an unknown key is quoted as JSON
 * when it is not plain (zod quotes unknown keys without escaping, so a key `a"; b` read as two
 * issues).
 */
export function describeIssues(issues: readonly SchemaIssue[], root: string): string {
  return issues
    .map((issue) => {
      const path = issue.path
        .map((part) => (typeof part === 'string' && plainSegment.test(part) ? part : JSON.stringify(String(part))))
        .join('.')
      const text =
        issue.code === 'unrecognized_keys' && issue.keys
          ? `Unrecognized key${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`
          : issue.message
      return `${path || root}: ${text}`
    })
    .join('; ')
}
