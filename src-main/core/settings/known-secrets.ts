import type { Environment } from '../providers/connection'
import { createRedactor, providerKeyVariables, type Redactor } from '../secrets/redact'
import type { KeyStore } from './key-store'

/**
 * Every secret the engine knows: each one in the key store (provider keys and trace headers) and
 * the value of each provider key variable in its environment. Read when asked, so a key saved a
 * moment ago is in.
 */
export function knownSecrets(sources: { keys: KeyStore; env: Environment }): string[] {
  const fromEnvironment = providerKeyVariables.map((name) => sources.env[name]).filter((value): value is string => Boolean(value))
  return [...sources.keys.secrets(), ...fromEnvironment]
}

/** The redactor of every known secret (secrets/redact.ts), for what leaves the engine outside a job. */
export const knownSecretsRedactor = (sources: { keys: KeyStore; env: Environment }): Redactor => createRedactor(knownSecrets(sources))
