import type { PriceRow } from '@core/api/contract'
import type { ModelPrice } from '@core/providers/pricing'

/** Settings' price rows as the engine keys them: model → price (for the new-job form and each provider's model suggestions). */
export function priceTable(rows: readonly PriceRow[]): Record<string, ModelPrice> {
  const table: Record<string, ModelPrice> = {}
  for (const { model, input, output, cache_read, cache_write } of rows) table[model] = { input, output, cache_read, cache_write }
  return table
}
