import type { Usage } from '../trace/usage'
import type { ProviderErrorCode } from './errors'

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
  /** Asked before every HTTP attempt (the supervisor's shared rate limit and call cap); none: every attempt goes at once. */
  gate?: AttemptGate
}

/**
 * What an HTTP provider asks before each attempt of a call, and tells after it: the supervisor's
 * view of the endpoint shared by all its agents (supervisor/provider-limits.ts). `acquire`
 * resolves when the attempt may go (no cooldown, a free slot) and rejects when `signal` aborts.
 */
export interface AttemptGate {
  acquire(signal?: AbortSignal): Promise<AttemptTicket>
}

export interface AttemptTicket {
  /** What the attempt came to: ok once it has streamed anything; a failure with the delay before its retry. */
  settle(result: AttemptResult): void
  /** The attempt is over (its stream ended, failed or was left): its slot goes to the next. */
  release(): void
}

export type AttemptResult = { ok: true } | { ok: false; code: ProviderErrorCode; status: number | null; detail: string; delay_ms: number }

export interface Provider {
  /** `scripted`, `openai`, `anthropic`: the `provider` field of `llm.call` events. */
  readonly kind: string
  readonly model: string
  /**
   * Which endpoint's limits the calls count against (kind, base URL and a hash of the key, never
   * the key): agents with the same one share a rate limit and a cap on concurrent calls. None
   * for providers that call no API.
   */
  readonly limitKey?: string
  /** One model call. Throws a ProviderError on failure; ends with exactly one `finish` event. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>
}

/** Waits `ms`; rejects when `signal` aborts. Injected so tests never wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>
