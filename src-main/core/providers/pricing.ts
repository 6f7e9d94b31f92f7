import type { Usage } from '../trace/usage'

/** USD per million tokens. `cache_read` and `cache_write` price the cached share of the input. */
export interface ModelPrice {
  input: number
  cache_read: number
  cache_write: number
  output: number
}

export type PriceTable = Readonly<Record<string, ModelPrice>>

const openai = (input: number, cache_read: number, output: number): ModelPrice => ({ input, cache_read, cache_write: input, output })
/** Anthropic bills 5-minute cache writes at 1.25× input and cache reads at 0.1× input. */
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  cache_read: round(input * 0.1),
  cache_write: round(input * 1.25),
  output,
})
const round = (value: number): number => Math.round(value * 1e6) / 1e6

/**
 * List prices (standard tier, prompts under any long-context surcharge threshold) as published
 * by OpenAI and Anthropic as of early 2026, which is as far as the author's knowledge goes.
 * They change: this table is the default and is meant to be edited (settings pass their own
 * table). A model missing here has no cost (null) rather than a guessed one.
 */
export const defaultPrices: PriceTable = {
  // OpenAI: cached input is discounted; cache writes cost nothing extra (and are reported as 0).
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-2024-05-13': openai(5, 5, 15),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-5.1': openai(1.25, 0.125, 10),
  o3: openai(2, 0.5, 8),
  'o3-mini': openai(1.1, 0.55, 4.4),
  'o4-mini': openai(1.1, 0.275, 4.4),
  // Anthropic
  'claude-opus-4': anthropic(15, 75),
  'claude-opus-4-0': anthropic(15, 75),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-sonnet-4-0': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-5-haiku': anthropic(0.8, 4),
}

/** A dated snapshot (`-2024-08-06`, `-20250514`) or a `-latest` alias of a listed id. */
const snapshotSuffix = /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/

/** The price of `model`: its exact id first, then the id it is a dated snapshot of; else null. */
export function priceFor(model: string, table: PriceTable = defaultPrices): ModelPrice | null {
  const exact = table[model]
  if (exact) return exact
  for (const [id, price] of Object.entries(table)) {
    if (model.startsWith(id) && snapshotSuffix.test(model.slice(id.length))) return price
  }
  return null
}

/** USD for one call's usage; null when the model has no price. Input counts include the cached share. */
export function costOf(model: string, usage: Usage, table: PriceTable = defaultPrices): number | null {
  const price = priceFor(model, table)
  if (!price) return null
  const uncached = Math.max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens)
  const micro =
    uncached * price.input +
    usage.cache_read_tokens * price.cache_read +
    usage.cache_write_tokens * price.cache_write +
    usage.output_tokens * price.output
  return micro / 1_000_000
}
