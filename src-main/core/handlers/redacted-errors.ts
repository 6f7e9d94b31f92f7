import type { ApiHandlers } from '../api/contract'
import type { Redactor } from '../secrets/redact'

/**
 * The API's handlers, each failure's message redacted (secrets/redact.ts) before it leaves: an
 * API error reaches a renderer, a browser over `serve`, a log. The error itself is rethrown, its
 * class and code kept. `redactor` is called only when a handler fails, so it reads the keys
 * known at that moment.
 */
export function withRedactedErrors(handlers: ApiHandlers, redactor: () => Pick<Redactor, 'redact'>): ApiHandlers {
  const wrapped: Record<string, (input: never) => Promise<unknown>> = {}
  for (const [name, handler] of Object.entries(handlers) as [string, (input: never) => Promise<unknown>][]) {
    wrapped[name] = async (input) => {
      try {
        return await handler(input)
      } catch (error) {
        if (error instanceof Error) error.message = redactor().redact(error.message)
        throw error
      }
    }
  }
  return wrapped as ApiHandlers
}
