import { providerKeyVariables } from '../secrets/redact'

/**
 * An agent process never inherits the provider key variables: keys reach an agent only in its
 * `start` message, so a tool that reads its environment (or /proc of its parent's children) finds none.
 */
export function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...env }
  for (const name of providerKeyVariables) delete clean[name]
  return clean
}
