import type { KeyedProviderId } from '../api/job-form'
import type { ConnectionTest } from '../api/contract'
import { createAnthropicProvider } from '../providers/anthropic'
import { collectReply } from '../providers/collect'
import { ProviderError } from '../providers/errors'
import { createOpenAIProvider } from '../providers/openai'
import { sleep } from '../providers/sleep'
import { createRedactor } from '../secrets/redact'
import type { ResolvedConnection } from './providers'

export const connectionTestPrompt = 'This is a connection test from Arbor. Reply with the single word: pong'

/**
 * One tiny real request (one short user message, no tools, no retries) to see that the key,
 * base URL and model work. Answers with the reply and the latency, or the provider's error with
 * its HTTP status and message. No key is part of what comes back: the connection's and `secrets`
 * (every key the engine knows) are redacted from the answer and the error.
 */
export async function testConnection(
  provider: KeyedProviderId,
  model: string,
  connection: ResolvedConnection,
  options: { timeoutMs?: number; now?: () => number; secrets?: readonly string[] } = {},
): Promise<ConnectionTest> {
  const now = options.now ?? (() => performance.now())
  const common = { model, apiKey: connection.api_key, baseURL: connection.base_url ?? undefined, sleep, retry: { max_attempts: 1 } }
  const client = provider === 'anthropic' ? createAnthropicProvider({ ...common, maxTokens: 16 }) : createOpenAIProvider(common)
  const redactor = createRedactor([connection.api_key, ...(options.secrets ?? [])])
  const started = now()
  try {
    const reply = await collectReply(client, {
      messages: [{ role: 'user', content: connectionTestPrompt }],
      tools: [],
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    })
    return { ok: true, latency_ms: Math.round(now() - started), model, answer: redactor.redact(reply.text.trim().slice(0, 500)) }
  } catch (error) {
    const latency_ms = Math.round(now() - started)
    const message = error instanceof Error ? error.message : String(error)
    const status = ProviderError.isInstance(error) ? error.status : null
    const timedOut = ProviderError.isInstance(error) && error.code === 'aborted'
    return { ok: false, latency_ms, status, message: redactor.redact(timedOut ? 'no answer within 20 s' : message) }
  }
}
