import type { Usage } from '../trace/usage'

/**
 * The one interface every model provider implements (openai, anthropic, scripted). Nothing
 * provider-specific leaks past it: adapters translate these shapes to and from their API.
 */

/** A tool call as the model made it. `arguments` is the raw JSON text, kept as sent. */
export interface ToolCall {
  id: string
  name: string
  arguments: string
}

/** A history message in a provider-neutral shape. */
export type ProviderMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string }

/** A tool as offered to the model. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other'

/** What a streaming call yields: deltas and whole tool calls as they complete, then one `finish`. */
export type ProviderEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'finish'; usage: Usage; cost_usd: number | null; finish_reason: FinishReason; response?: ResponseIdentity }

/** What the provider said of its response: its id and the model that answered (GenAI `gen_ai.response.*`). */
export interface ResponseIdentity {
  id?: string
  model?: string
}

export interface ProviderRequest {
  messages: ProviderMessage[]
  tools: ToolDefinition[]
  signal?: AbortSignal
}

export interface Provider {
  /** `scripted`, `openai`, `anthropic`: the `provider` field of `llm.call` events. */
  readonly kind: string
  readonly model: string
  /** One model call. Throws a ProviderError on failure; ends with exactly one `finish` event. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>
}

/** Waits `ms`; rejects when `signal` aborts. Injected so tests never wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>
