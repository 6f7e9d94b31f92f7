import { ProviderError } from './errors'
import type { Provider } from './types'

export type Environment = Readonly<Record<string, string | undefined>>

export interface Connection {
  apiKey: string
  /** Undefined means the SDK's default (the public API). */
  baseURL: string | undefined
}

/** Sent to a local server (Ollama, vLLM, LM Studio, a test's fake) when no key is set. */
export const localPlaceholderKey = 'arbor-local-no-key'

const envNames = {
  openai: { key: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL' },
} as const

/**
 * The key and base URL a provider uses: the configured base URL, else the environment's; the
 * key from the environment. A missing key is an `auth` error unless the base URL is a local
 * server, which gets a placeholder key. Keys are never read from, or written to, the config.
 */
export function resolveConnection(
  kind: 'openai' | 'anthropic',
  configuredBaseURL: string | null,
  env: Environment,
): Connection | ProviderError {
  const names = envNames[kind]
  const baseURL = nonEmpty(configuredBaseURL) ?? nonEmpty(env[names.baseURL])
  const apiKey = nonEmpty(env[names.key])
  if (apiKey) return { apiKey, baseURL }
  if (baseURL && isLocalURL(baseURL)) return { apiKey: localPlaceholderKey, baseURL }
  return new ProviderError(
    'auth',
    `${kind}: no API key: set ${names.key} in the environment or enter a key in settings` +
      ` (a --base-url on this machine, such as http://127.0.0.1:11434/v1, needs none)`,
  )
}

export function isLocalURL(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || /^127\./.test(host)
  } catch {
    return false
  }
}

/** A provider whose every call fails with `error`: configuration errors surface as a model-call failure. */
export function failingProvider(kind: string, model: string, error: ProviderError): Provider {
  return {
    kind,
    model,
    stream: () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
    }),
  }
}

const nonEmpty = (value: string | null | undefined): string | undefined => (value && value.trim() !== '' ? value.trim() : undefined)
