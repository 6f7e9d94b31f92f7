import { describe, expect, it } from 'vitest'
import type { PriceRow, ProviderInfo, SettingsView } from '@core/api/contract'
import {
  baseUrlPlaceholder,
  checkNewModel,
  connectionSummary,
  filterPrices,
  keySetText,
  keySourceText,
  keyStorageText,
  parsePriceDraft,
  priceDraft,
  providerConfigInput,
  providerDraft,
  sameDraft,
  samePrice,
  withKey,
  withPrices,
  withProviderInfo,
} from './settings-model'

const openai: ProviderInfo = {
  id: 'openai',
  label: 'OpenAI',
  key: { source: 'environment', env_var: 'OPENAI_API_KEY', last4: 'a1b2' },
  base_url: 'https://proxy.example/v1',
  base_url_source: 'environment',
  default_base_url: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
  light_model: 'gpt-4.1-mini',
}
const compatible: ProviderInfo = {
  id: 'openai_compatible',
  label: 'OpenAI-compatible',
  key: { source: 'none', env_var: null, last4: null },
  base_url: 'http://localhost:11434/v1',
  base_url_source: 'settings',
  default_base_url: 'http://localhost:11434/v1',
  model: 'llama3.1',
  light_model: null,
}
const row = (model: string, source: PriceRow['source'] = 'builtin'): PriceRow => ({
  model,
  input: 2,
  output: 8,
  cache_read: 0.5,
  cache_write: 2,
  source,
})
const view: SettingsView = {
  providers: [openai, compatible],
  prices: [row('gpt-4.1')],
  key_storage: { encrypted: true, available: true, description: '~/.config/Arbor/keys.json (encrypted with the OS keychain)' },
  max_model_calls: 8,
}

describe('keys', () => {
  it('says where a key comes from and shows only its last four characters', () => {
    expect(keySourceText('openai', openai.key)).toBe('From the environment (OPENAI_API_KEY)')
    expect(keySourceText('anthropic', { source: 'stored', env_var: 'ANTHROPIC_API_KEY', last4: 'wxyz' })).toBe('Stored by Arbor')
    expect(keySourceText('anthropic', { source: 'none', env_var: 'ANTHROPIC_API_KEY', last4: null })).toBe(
      'No key: save one here or set ANTHROPIC_API_KEY',
    )
    expect(keySourceText('openai_compatible', compatible.key)).toMatch(/needs none/)
    expect(keySetText(openai.key)).toBe('set · …a1b2')
    expect(keySetText(compatible.key)).toBeNull()
  })

  it('says whether keys are encrypted, and why they cannot be saved', () => {
    expect(keyStorageText(view.key_storage)).toMatchObject({ headline: 'Keys are stored encrypted with the OS keychain', warning: null })
    const plain = keyStorageText({ encrypted: false, available: true, description: 'keys.json (not encrypted)' })
    expect(plain.headline).toBe('Keys are stored in a file only you can read; it is NOT encrypted')
    expect(keyStorageText({ encrypted: true, available: false, description: 'x' }).warning).toMatch(/cannot be saved here/)
  })

  it('applies what the key calls return without touching other providers', () => {
    const next = withKey(view, 'openai', { source: 'stored', env_var: 'OPENAI_API_KEY', last4: '9999' })
    expect(next.providers[0]!.key.last4).toBe('9999')
    expect(next.providers[1]).toBe(compatible)
    expect(JSON.stringify(next)).not.toMatch(/sk-/)
  })
})

describe('provider form', () => {
  it('shows a base URL saved in settings, and the one from the environment only as the placeholder', () => {
    expect(providerDraft(openai)).toEqual({ base_url: '', model: 'gpt-4.1', light_model: 'gpt-4.1-mini' })
    expect(baseUrlPlaceholder(openai)).toBe('https://proxy.example/v1 (from the environment)')
    expect(providerDraft(compatible)).toEqual({ base_url: 'http://localhost:11434/v1', model: 'llama3.1', light_model: '' })
    expect(sameDraft(providerDraft(openai), { base_url: ' ', model: 'gpt-4.1 ', light_model: 'gpt-4.1-mini' })).toBe(true)
  })

  it('checks the provider form with the contract: empty is null, a model is needed', () => {
    expect(providerConfigInput('openai', { base_url: '', model: ' gpt-5 ', light_model: '' })).toEqual({
      ok: true,
      input: { provider: 'openai', base_url: null, model: 'gpt-5', light_model: null },
    })
    expect(providerConfigInput('openai_compatible', { base_url: 'localhost:11434', model: '', light_model: '' })).toEqual({
      ok: false,
      errors: { base_url: 'must be an http:// or https:// URL', model: 'enter a model' },
    })
  })

  it('applies what setProviderConfig returns', () => {
    const saved = { ...openai, model: 'gpt-5' }
    expect(withProviderInfo(view, saved).providers).toEqual([saved, compatible])
  })
})

describe('connection test', () => {
  it('shows the answer and latency, or the HTTP status and message', () => {
    expect(connectionSummary({ ok: true, latency_ms: 212, model: 'gpt-4.1', answer: 'pong' })).toEqual({
      title: 'Connected · 212 ms',
      detail: 'gpt-4.1 answered “pong”',
    })
    expect(connectionSummary({ ok: false, latency_ms: 95, status: 401, message: 'Incorrect API key provided' })).toEqual({
      title: 'HTTP 401 · 95 ms',
      detail: 'Incorrect API key provided',
    })
    expect(connectionSummary({ ok: false, latency_ms: 0, status: null, message: 'fetch failed' }).title).toBe('Failed · 0 ms')
  })
})

describe('prices', () => {
  it('reads a price draft; empty cache prices are the input price', () => {
    expect(parsePriceDraft({ input: '1.5', output: '$6', cache_read: '', cache_write: ' ' })).toEqual({
      ok: true,
      price: { input: 1.5, output: 6, cache_read: 1.5, cache_write: 1.5 },
    })
    expect(parsePriceDraft({ input: '', output: 'abc', cache_read: '-1', cache_write: '20000' })).toEqual({
      ok: false,
      errors: { input: 'enter a price', output: 'must be a number', cache_read: 'at least 0', cache_write: 'at most 10,000' },
    })
  })

  it('knows when a row is unchanged', () => {
    const price = row('gpt-4.1')
    expect(samePrice(priceDraft(price), price)).toBe(true)
    expect(samePrice({ ...priceDraft(price), output: '8.0' }, price)).toBe(true)
    expect(samePrice({ ...priceDraft(price), output: '9' }, price)).toBe(false)
    expect(samePrice({ ...priceDraft(price), output: '' }, price)).toBe(false)
  })

  it('checks a model to add', () => {
    expect(checkNewModel('  ', view.prices)).toBe('enter a model id')
    expect(checkNewModel('gpt-4.1', view.prices)).toBe('already in the table: edit its row')
    expect(checkNewModel('llama3.1', view.prices)).toBeNull()
  })

  it('filters rows by model id and applies a new table', () => {
    const rows = [row('gpt-4.1'), row('claude-sonnet-4-5'), row('llama3.1', 'custom')]
    expect(filterPrices(rows, ' GPT ').map((price) => price.model)).toEqual(['gpt-4.1'])
    expect(filterPrices(rows, '')).toEqual(rows)
    expect(withPrices(view, rows).prices).toBe(rows)
  })
})
