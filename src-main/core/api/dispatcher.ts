import { apiContract, type ApiHandlers, type ApiMethod, type ApiResult } from './contract'
import { ApiFailure, apiErrorOf, describeIssues } from './errors'

export type Dispatch = (method: string, input: unknown) => Promise<ApiResult<unknown>>

/**
 * Serves the contract: looks the method up, parses the input with its schema, runs the handler
 * and turns every failure into `{code, message, fields?}` (api/errors.ts `apiErrorOf`: what is
 * not an Arbor error crosses as `internal`, its message left to `onInternalError`). IPC and the
 * `serve` WebSocket both go through this one function, so both are validated by the same code.
 */
export function createDispatcher(handlers: ApiHandlers, onInternalError?: (error: unknown) => void): Dispatch {
  return async (method, input) => {
    if (!Object.hasOwn(apiContract, method)) {
      return { ok: false, error: { code: 'unknown_method', message: `unknown method: ${String(method).slice(0, 100)}` } }
    }
    const name = method as ApiMethod
    const parsed = apiContract[name].safeParse(input ?? {})
    if (!parsed.success) {
      const detail = describeIssues(parsed.error.issues, '(input)')
      return { ok: false, error: { code: 'invalid_request', message: `${name}: ${detail}`, fields: issueFields(parsed.error.issues) } }
    }
    try {
      const handler = handlers[name] as (value: unknown) => Promise<unknown>
      return { ok: true, value: await handler(parsed.data) }
    } catch (error) {
      if (!ApiFailure.isInstance(error)) onInternalError?.(error)
      return { ok: false, error: apiErrorOf(error) }
    }
  }
}

/** The first message per field of a form (`startJob`'s `job.task` is the field `task`). */
function issueFields(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const issue of issues) {
    const path = issue.path.filter((part): part is string => typeof part === 'string' && part !== 'job')
    const field = path[0] ?? 'form'
    fields[field] ??= issue.message
  }
  return fields
}
