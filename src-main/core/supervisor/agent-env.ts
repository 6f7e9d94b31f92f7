/**
 * Variables an agent process never inherits: provider keys reach an agent only in its `start`
 * message, so a tool that reads its environment (or /proc of its parent's children) finds none.
 */
export const providerKeyVariables = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENROUTER_API_KEY'] as const

export function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...env }
  for (const name of providerKeyVariables) delete clean[name]
  return clean
}
