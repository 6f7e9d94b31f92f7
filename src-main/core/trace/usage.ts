import { z } from 'zod'

/** Token usage, named after OpenTelemetry's gen_ai.usage.*: input_tokens counts every prompt token, cached ones included. */
export const usageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_tokens: z.number().int().nonnegative(),
  cache_write_tokens: z.number().int().nonnegative(),
  reasoning_tokens: z.number().int().nonnegative(),
})
export type Usage = z.infer<typeof usageSchema>

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
})

export function addUsage(total: Usage, more: Partial<Usage>): Usage {
  return {
    input_tokens: total.input_tokens + (more.input_tokens ?? 0),
    output_tokens: total.output_tokens + (more.output_tokens ?? 0),
    cache_read_tokens: total.cache_read_tokens + (more.cache_read_tokens ?? 0),
    cache_write_tokens: total.cache_write_tokens + (more.cache_write_tokens ?? 0),
    reasoning_tokens: total.reasoning_tokens + (more.reasoning_tokens ?? 0),
  }
}

/** Cost sums where any unknown (null) cost makes the sum unknown only if nothing is known. */
export function addCost(total: number | null, more: number | null | undefined): number | null {
  if (more === null || more === undefined) return total
  return (total ?? 0) + more
}
