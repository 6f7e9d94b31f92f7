import { keyedProviderIds } from '../../api/job-form'
import { resolveKey, type ProviderSources } from '../../settings/providers'
import { providerKeyVariables } from '../../supervisor/agent-env'
import { Redactor } from '../../supervisor/redact'

/**
 * The engine's known keys (saved in settings, or in the provider variables of its environment)
 * as the Redactor agents' output goes through: a session transcript records whatever its
 * commands printed, and an imported one is stored, shown and exported like any trace.
 */
export function knownKeyRedactor(sources: ProviderSources): Redactor {
  return new Redactor([
    ...keyedProviderIds.map((provider) => resolveKey(provider, sources).key),
    ...providerKeyVariables.map((name) => sources.env[name]),
  ])
}
