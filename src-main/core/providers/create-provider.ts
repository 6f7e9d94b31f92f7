import type { AgentInit } from '../supervisor/protocol'
import { ProviderError } from './errors'
import { createScriptedProvider } from './scripted'
import type { Provider, Sleep } from './types'

export interface ProviderDependencies {
  sleep: Sleep
}

/** The provider an agent process talks to, from its init message. One case per provider module. */
export function createProvider(config: AgentInit['provider'], dependencies: ProviderDependencies): Provider {
  switch (config.kind) {
    case 'scripted':
      return createScriptedProvider({ model: config.model, script: config.script, sleep: dependencies.sleep })
    case 'openai':
    case 'anthropic':
      throw new ProviderError('other', `the ${config.kind} provider is not built yet`)
  }
}
