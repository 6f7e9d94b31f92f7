import { defaultModels, keyedProviderIds, providerLabels, type KeyedProviderId } from '../api/job-form'
import type { KeyInfo, ProviderInfo } from '../api/contract'
import { isLocalURL, localPlaceholderKey, type Environment } from '../providers/connection'
import type { AppSettings } from '../store/app-settings'
import { lastFour, type KeyStore } from './key-store'

/**
 * Each provider's key, base URL and default models, from three places in order: what the user
 * saved in settings, the environment, the built-in default. The engine is the one place keys are
 * resolved; agents receive theirs in memory (the `start` message), never through the environment.
 */
export const providerEnvironment: Record<KeyedProviderId, { key: string | null; base_url: string | null }> = {
  openai: { key: 'OPENAI_API_KEY', base_url: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', base_url: 'ANTHROPIC_BASE_URL' },
  openai_compatible: { key: null, base_url: null },
}

export const defaultBaseUrls: Record<KeyedProviderId, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  openai_compatible: 'http://localhost:11434/v1',
}

export interface ProviderSources {
  settings: AppSettings
  keys: KeyStore
  env: Environment
}

/** The key a provider would use, and where it came from. */
export function resolveKey(provider: KeyedProviderId, sources: ProviderSources): { key: string | null; source: KeyInfo['source'] } {
  const stored = sources.keys.get(provider)
  if (stored) return { key: stored, source: 'stored' }
  const variable = providerEnvironment[provider].key
  const fromEnvironment = variable ? sources.env[variable]?.trim() : undefined
  if (fromEnvironment) return { key: fromEnvironment, source: 'environment' }
  return { key: null, source: 'none' }
}

export function keyInfo(provider: KeyedProviderId, sources: ProviderSources): KeyInfo {
  const { key, source } = resolveKey(provider, sources)
  return { source, env_var: providerEnvironment[provider].key, last4: key ? lastFour(key) : null }
}

export function providerInfo(provider: KeyedProviderId, sources: ProviderSources): ProviderInfo {
  const saved = sources.settings.providerSettings(provider)
  const variable = providerEnvironment[provider].base_url
  const fromEnvironment = variable ? sources.env[variable]?.trim() : undefined
  const base = saved?.base_url
    ? { base_url: saved.base_url, base_url_source: 'settings' as const }
    : fromEnvironment
      ? { base_url: fromEnvironment, base_url_source: 'environment' as const }
      : { base_url: provider === 'openai_compatible' ? null : defaultBaseUrls[provider], base_url_source: 'default' as const }
  return {
    id: provider,
    label: providerLabels[provider],
    key: keyInfo(provider, sources),
    ...base,
    default_base_url: defaultBaseUrls[provider],
    model: saved?.model ?? defaultModels[provider].model,
    light_model: saved ? saved.light_model : defaultModels[provider].light_model,
  }
}

export const allProviderInfo = (sources: ProviderSources): ProviderInfo[] => keyedProviderIds.map((id) => providerInfo(id, sources))

export interface ResolvedConnection {
  api_key: string
  /** null: the SDK's default (the public API). */
  base_url: string | null
}

/**
 * What an agent of `provider` connects with: the job's base URL, else the provider's; the key
 * from settings or the environment. A local server needs no key; a missing key elsewhere is an
 * error that says where to put one. A job that says `noKey` sends none, whatever is stored.
 */
export function resolveConnectionFor(
  provider: KeyedProviderId,
  jobBaseUrl: string | null | undefined,
  sources: ProviderSources,
  options: { noKey?: boolean } = {},
): ResolvedConnection | { error: string } {
  const info = providerInfo(provider, sources)
  const baseUrl = jobBaseUrl?.trim() || info.base_url
  if (options.noKey) {
    if (baseUrl) return { api_key: localPlaceholderKey, base_url: baseUrl }
    return { error: `running ${providerLabels[provider]} without a key needs the base URL of a server that needs none` }
  }
  const { key } = resolveKey(provider, sources)
  if (key) return connectionWithKey(provider, jobBaseUrl, key, sources)
  if (baseUrl && isLocalURL(baseUrl)) return { api_key: localPlaceholderKey, base_url: baseUrl }
  const variable = providerEnvironment[provider].key
  return {
    error:
      `${providerLabels[provider]} has no API key: enter one in Settings ▸ Providers` +
      (variable ? ` or set ${variable} in the environment` : '') +
      (provider === 'openai_compatible' ? ' (a server on this machine, such as http://localhost:11434/v1, needs none)' : ''),
  }
}

/**
 * What a request with this very key connects to: the given base URL, else the provider's (null
 * for the public API's default). For the key resolveConnectionFor found, and for one the user
 * typed and has not saved (Test connection).
 */
export function connectionWithKey(
  provider: KeyedProviderId,
  baseUrl: string | null | undefined,
  key: string,
  sources: ProviderSources,
): ResolvedConnection {
  const info = providerInfo(provider, sources)
  const url = baseUrl?.trim() || info.base_url
  return { api_key: key, base_url: url === info.default_base_url && info.base_url_source === 'default' ? null : url }
}

const sameUrl = (a: string, b: string): boolean => a.trim().replace(/\/+$/, '') === b.trim().replace(/\/+$/, '')

/**
 * A request from the UI (a job's or a connection test's base URL) may not send a provider's key
 * anywhere but to the base URL configured for it in settings or the environment: otherwise a
 * page that can call the API could ask for the key to be sent to a server of its own. Without
 * a key there is nothing to leak, so any URL is fine. The CLI's `--base-url` is the user's own
 * command line and is not checked.
 */
export function keyDestinationError(
  provider: KeyedProviderId,
  baseUrl: string | null | undefined,
  sources: ProviderSources,
  options: { noKey?: boolean } = {},
): string | null {
  if (!baseUrl?.trim() || options.noKey) return null
  const info = providerInfo(provider, sources)
  if (info.base_url && sameUrl(baseUrl, info.base_url)) return null
  if (resolveKey(provider, sources).key === null) return null
  return (
    `Arbor sends the ${providerLabels[provider]} key only to the base URL in Settings ▸ Providers (${info.base_url ?? 'none set'}): ` +
    'save this base URL there to use the key with it, or send no key (a server that needs none)'
  )
}
