import type { ProviderConfig } from './provider-config'
import { createAnthropicProvider } from './anthropic'
import { failingProvider, resolveConnection, type Environment } from './connection'
import { createOpenAIProvider } from './openai'
import type { PriceTable } from './pricing'
import { createScriptedProvider } from './scripted'
import type { StreamTimeouts } from './stream-watchdog'
import type { Provider, Sleep } from './types'

export interface ProviderDependencies {
  sleep: Sleep
  /** Where API keys and base URLs are read; the process environment by default. */
  env?: Environment
  /** Prices edited in settings; the built-in table by default. */
  prices?: PriceTable
  /** How long an HTTP provider's attempt may stay silent; `defaultStreamTimeouts` for what is not given. */
  timeouts?: Partial<StreamTimeouts>
}

/**
 * The provider an agent process talks to, from its init message. One case per provider module.
 * A missing API key does not throw here: the provider's first call fails with an `auth` error,
 * so the agent ends with `provider_error` and a message that says which variable to set.
 */
export function createProvider(config: ProviderConfig, dependencies: ProviderDependencies): Provider {
  const env = dependencies.env ?? process.env
  switch (config.kind) {
    case 'scripted':
      return createScriptedProvider({ model: config.model, script: config.script, sleep: dependencies.sleep })
    case 'openai':
    case 'anthropic': {
      const connection = config.api_key
        ? { apiKey: config.api_key, baseURL: config.base_url ?? undefined }
        : resolveConnection(config.kind, config.base_url, env)
      if (connection instanceof Error) return failingProvider(config.kind, config.model, connection)
      const options = {
        model: config.model,
        ...connection,
        sleep: dependencies.sleep,
        prices: dependencies.prices,
        timeouts: dependencies.timeouts,
      }
      return config.kind === 'openai' ? createOpenAIProvider(options) : createAnthropicProvider(options)
    }
  }
}
