import {
  apiContract,
  type ApiInput,
  type ConnectionTest,
  type KeyInfo,
  type KeyStorageInfo,
  type PriceRow,
  type ProviderInfo,
  type SettingsView,
} from '@core/api/contract'
import type { KeyedProviderId } from '@core/api/job-form'
import type { ModelPrice } from '@core/providers/pricing'

/** Pure helpers of the settings page: what it shows, and what it sends. Never a key. */

/** Where a provider's key comes from, in words. */
export function keySourceText(provider: KeyedProviderId, key: KeyInfo): string {
  if (key.source === 'environment') return `From the environment (${key.env_var ?? 'variable'})`
  if (key.source === 'stored') return 'Stored by Arbor'
  if (provider === 'openai_compatible') return 'No key (a server on this machine needs none)'
  return key.env_var ? `No key: save one here or set ${key.env_var}` : 'No key'
}

/** "set · …abcd", or null when no key is set. */
export const keySetText = (key: KeyInfo): string | null => (key.source !== 'none' ? `set · …${key.last4 ?? ''}` : null)

export function keyStorageText(storage: KeyStorageInfo): { headline: string; detail: string; warning: string | null } {
  return {
    headline: storage.encrypted
      ? 'Keys are stored encrypted with the OS keychain'
      : 'Keys are stored in a file only you can read; it is NOT encrypted',
    detail: storage.description,
    warning: storage.available
      ? null
      : 'Keys cannot be saved here: no OS keychain is available to encrypt them. Set the key in the environment instead (e.g. OPENAI_API_KEY) and restart Arbor.',
  }
}

/** Applies what setProviderKey / clearProviderKey returned. */
export function withKey(view: SettingsView, provider: KeyedProviderId, key: KeyInfo): SettingsView {
  return { ...view, providers: view.providers.map((info) => (info.id === provider ? { ...info, key } : info)) }
}

/** Applies what setProviderConfig returned. */
export function withProviderInfo(view: SettingsView, provider: ProviderInfo): SettingsView {
  return { ...view, providers: view.providers.map((info) => (info.id === provider.id ? provider : info)) }
}

/** Applies what setPrice / resetPrice returned. */
export const withPrices = (view: SettingsView, prices: PriceRow[]): SettingsView => ({ ...view, prices })

/** The provider form's text: a base URL saved in settings shows in the input; one from the environment or the default only as its placeholder. */
export interface ProviderDraft {
  base_url: string
  model: string
  light_model: string
}

export function providerDraft(info: ProviderInfo): ProviderDraft {
  return {
    base_url: info.base_url_source === 'settings' ? (info.base_url ?? '') : '',
    model: info.model,
    light_model: info.light_model ?? '',
  }
}

export const sameDraft = (a: ProviderDraft, b: ProviderDraft): boolean =>
  a.base_url.trim() === b.base_url.trim() && a.model.trim() === b.model.trim() && a.light_model.trim() === b.light_model.trim()

/** What the base URL input shows when empty: the one jobs use, and where it comes from. */
export function baseUrlPlaceholder(info: ProviderInfo): string {
  if (info.base_url_source === 'environment' && info.base_url) return `${info.base_url} (from the environment)`
  return info.default_base_url
}

export type DraftErrors = Partial<Record<keyof ProviderDraft | 'form', string>>

/** Checks the provider form with the contract's own schema. */
export function providerConfigInput(
  provider: KeyedProviderId,
  draft: ProviderDraft,
): { ok: true; input: ApiInput<'setProviderConfig'> } | { ok: false; errors: DraftErrors } {
  const parsed = apiContract.setProviderConfig.safeParse({
    provider,
    base_url: draft.base_url.trim() === '' ? null : draft.base_url,
    model: draft.model,
    light_model: draft.light_model.trim() === '' ? null : draft.light_model,
  })
  if (parsed.success) return { ok: true, input: parsed.data }
  const errors: DraftErrors = {}
  for (const issue of parsed.error.issues) {
    const field = issue.path[0]
    const key = field === 'base_url' || field === 'model' || field === 'light_model' ? field : 'form'
    errors[key] ??= issue.message
  }
  return { ok: false, errors }
}

/** "pong · 212 ms", or "HTTP 401 · Incorrect API key · 95 ms". */
export function connectionSummary(result: ConnectionTest): { title: string; detail: string } {
  if (result.ok)
    return { title: `Connected · ${result.latency_ms} ms`, detail: `${result.model} answered “${result.answer || '(empty reply)'}”` }
  return {
    title: `${result.status !== null ? `HTTP ${result.status}` : 'Failed'} · ${result.latency_ms} ms`,
    detail: result.message,
  }
}

export const priceFields = ['input', 'output', 'cache_read', 'cache_write'] as const
export type PriceField = (typeof priceFields)[number]
export const priceFieldLabels: Record<PriceField, string> = {
  input: 'Input',
  output: 'Output',
  cache_read: 'Cache read',
  cache_write: 'Cache write',
}

export type PriceDraft = Record<PriceField, string>
export type PriceErrors = Partial<Record<PriceField | 'model', string>>

export const priceDraft = (price: ModelPrice): PriceDraft => ({
  input: String(price.input),
  output: String(price.output),
  cache_read: String(price.cache_read),
  cache_write: String(price.cache_write),
})

export const emptyPriceDraft = (): PriceDraft => ({ input: '', output: '', cache_read: '', cache_write: '' })

export const samePrice = (draft: PriceDraft, price: ModelPrice): boolean =>
  priceFields.every((field) => Number(draft[field].trim()) === price[field] && draft[field].trim() !== '')

/**
 * USD per million tokens, as the contract takes them (0 to 10,000). Empty cache prices are the
 * input price (no discount), which is what a provider without caching charges.
 */
export function parsePriceDraft(draft: PriceDraft): { ok: true; price: ModelPrice } | { ok: false; errors: PriceErrors } {
  const errors: PriceErrors = {}
  const values: Partial<ModelPrice> = {}
  for (const field of priceFields) {
    const raw = draft[field].trim().replace(/^\$\s*/, '')
    if (raw === '') {
      if (field === 'input' || field === 'output') errors[field] = 'enter a price'
      continue
    }
    if (!/^(\d+\.?\d*|\.\d+)$/.test(raw)) {
      errors[field] = raw.startsWith('-') ? 'at least 0' : 'must be a number'
      continue
    }
    const value = Number(raw)
    if (value > 10_000) errors[field] = 'at most 10,000'
    else values[field] = value
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  const input = values.input!
  return {
    ok: true,
    price: { input, output: values.output!, cache_read: values.cache_read ?? input, cache_write: values.cache_write ?? input },
  }
}

/** A model id for the add row: trimmed, at most 200 characters, and not already a row. */
export function checkNewModel(model: string, rows: readonly PriceRow[]): string | null {
  const trimmed = model.trim()
  if (trimmed === '') return 'enter a model id'
  if (trimmed.length > 200) return 'at most 200 characters'
  if (rows.some((row) => row.model === trimmed)) return 'already in the table: edit its row'
  return null
}

export const priceSourceLabels: Record<PriceRow['source'], string> = { builtin: 'built-in', edited: 'edited', custom: 'custom' }

/** Rows whose model id contains the filter (case-insensitive). */
export function filterPrices(rows: readonly PriceRow[], filter: string): PriceRow[] {
  const needle = filter.trim().toLowerCase()
  return needle ? rows.filter((row) => row.model.toLowerCase().includes(needle)) : [...rows]
}
