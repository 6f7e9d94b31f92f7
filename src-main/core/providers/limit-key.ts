import { createHash } from 'node:crypto'

/**
 * The name of an API endpoint as the supervisor's shared limits know it (Provider.limitKey):
 * the provider kind, the base URL and the first 16 hex digits of the key's SHA-256, so agents on
 * the same account share one rate limit while the key itself is never held as a name.
 */
export function limitKeyOf(kind: string, baseURL: string | undefined, apiKey: string): string {
  const keyHash = createHash('sha256').update(apiKey).digest('hex').slice(0, 16)
  return `${kind} ${baseURL ?? 'default'} ${keyHash}`
}
