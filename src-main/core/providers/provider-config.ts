import type { ScriptTurn } from '../trace/model'

/**
 * How the supervisor reaches an agent's model: the provider, its model, and for an HTTP provider
 * the base URL and key. It lives with the providers, not in the agent–supervisor protocol: it never
 * crosses a process boundary (an agent process is told only its provider's kind and model, in
 * `AgentInit.provider`), so nothing parses it and the agent's code cannot name its key.
 */
export type ProviderConfig =
  | { kind: 'scripted'; model: string; script: ScriptTurn[] }
  | { kind: 'openai'; model: string; base_url: string | null; api_key?: string | null }
  | { kind: 'anthropic'; model: string; base_url: string | null; api_key?: string | null }
