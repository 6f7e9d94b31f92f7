import type { ApiHandlers, PriceRow } from '../api/contract'
import { ApiFailure } from '../api/errors'
import { defaultPrices } from '../providers/pricing'
import { allProviderInfo, connectionWithKey, keyDestinationError, keyInfo, providerInfo, resolveConnectionFor } from '../settings/providers'
import { knownSecrets } from '../settings/known-secrets'
import { testConnection } from '../settings/test-connection'
import type { AppSettings } from '../store/app-settings'
import { providerSources, type EngineContext } from './context'

type SettingsHandlers = Pick<
  ApiHandlers,
  | 'getSettings'
  | 'setProviderKey'
  | 'clearProviderKey'
  | 'setProviderConfig'
  | 'testConnection'
  | 'setPrice'
  | 'resetPrice'
  | 'setMaxModelCalls'
>

/** Settings: providers (keys write-only), and the price table new jobs use. */
export function settingsHandlers(context: EngineContext): SettingsHandlers {
  const sources = () => providerSources(context)
  return {
    getSettings: async () => ({
      providers: allProviderInfo(sources()),
      prices: priceRows(context.settings),
      key_storage: { encrypted: context.keys.encrypted, available: context.keys.available, description: context.keys.description },
      max_model_calls: context.settings.maxModelCalls(),
    }),
    setProviderKey: async ({ provider, key }) => {
      try {
        context.keys.set(provider, key)
      } catch (error) {
        throw new ApiFailure('unsupported', error instanceof Error ? error.message : String(error))
      }
      return { key: keyInfo(provider, sources()) }
    },
    clearProviderKey: async ({ provider }) => {
      context.keys.clear(provider)
      return { key: keyInfo(provider, sources()) }
    },
    setProviderConfig: async ({ provider, base_url, model, light_model }) => {
      context.settings.saveProviderSettings({ provider, base_url, model, light_model })
      return { provider: providerInfo(provider, sources()) }
    },
    testConnection: async ({ provider, base_url, model, key }) => {
      const info = providerInfo(provider, sources())
      // A key typed in the form goes to the URL the form shows, for this one request: the user
      // put the two side by side. It is taken out of the answer like every known key.
      if (key !== undefined) {
        const connection = connectionWithKey(provider, base_url, key, sources())
        return testConnection(provider, model ?? info.model, connection, { secrets: [...knownSecrets(context), key] })
      }
      const refused = keyDestinationError(provider, base_url, sources())
      if (refused) return { ok: false, latency_ms: 0, status: null, message: refused }
      const connection = resolveConnectionFor(provider, base_url ?? null, sources())
      if ('error' in connection) return { ok: false, latency_ms: 0, status: null, message: connection.error }
      return testConnection(provider, model ?? info.model, connection, { secrets: knownSecrets(context) })
    },
    setPrice: async ({ model, price }) => {
      context.settings.setPrice(model, price)
      return { prices: priceRows(context.settings) }
    },
    resetPrice: async ({ model }) => {
      context.settings.resetPrice(model)
      return { prices: priceRows(context.settings) }
    },
    setMaxModelCalls: async ({ value }) => {
      context.settings.setMaxModelCalls(value)
      return { max_model_calls: context.settings.maxModelCalls() }
    },
  }
}

export function priceRows(settings: AppSettings): PriceRow[] {
  const edits = settings.priceEdits()
  const table = { ...defaultPrices, ...edits }
  return Object.keys(table)
    .sort((a, b) => a.localeCompare(b))
    .map((model) => ({ model, ...table[model]!, source: !(model in edits) ? 'builtin' : model in defaultPrices ? 'edited' : 'custom' }))
}
