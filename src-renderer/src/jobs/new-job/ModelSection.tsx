import { useMemo, type ReactNode } from 'react'
import type { SettingsView } from '@core/api/contract'
import { defaultModels, providerIds, providerLabels, suggestedModels, type ProviderId } from '@core/api/job-form'
import { priceFor, type PriceTable } from '@core/providers/pricing'
import { BaseUrlPresets, FormSection, ModelOptions } from '../../settings/FormControls'
import { describePrice } from '../NewJobForm'
import type { JobFields } from './job-fields'
import { baseUrlPlaceholder, keyHint, providerError } from './provider-hints'

/** Provider, base URL and the two models, with where the key comes from and what each model costs. */
export function ModelSection(props: {
  fields: JobFields
  settings: SettingsView | null
  prices: PriceTable
  onProviderChange(provider: ProviderId): void
}) {
  const { fields, prices } = props
  const { form, id, update, openSettings, row, fieldProps, textInput, toggle } = fields
  const provider = form.provider
  const providerInfo = provider === 'scripted' ? undefined : props.settings?.providers.find((info) => info.id === provider)
  const models = useMemo(() => suggestedModels(provider, prices), [provider, prices])

  const modelHint = (field: 'model' | 'light_model', purpose: string): ReactNode => {
    const model = form[field].trim()
    if (provider === 'scripted') return purpose
    if (!model) return purpose
    const price = priceFor(model, prices)
    if (price) return `${purpose} ${describePrice(price)}.`
    return (
      <>
        <span className="form-note warn" data-testid={`job-unpriced-${field}`}>
          no price: cost unknown
        </span>{' '}
        <button type="button" className="inline-link" data-testid={`job-price-${field}`} onClick={() => openSettings(field, model)}>
          Add a price for “{model}”
        </button>
      </>
    )
  }

  return (
    <FormSection title="Model" id={id('s-model')}>
      {row(
        'provider',
        'Provider',
        keyHint(provider, providerInfo, fields),
        <select
          {...fieldProps('provider')}
          className="input select"
          value={form.provider}
          onChange={(event) => props.onProviderChange(event.target.value as ProviderId)}
        >
          {providerIds.map((value) => (
            <option key={value} value={value}>
              {providerLabels[value]}
            </option>
          ))}
        </select>,
        { error: providerError(provider, fields) },
      )}
      {row(
        'base_url',
        'Base URL',
        provider === 'openai_compatible'
          ? 'Your server’s OpenAI-compatible endpoint, usually ending in /v1.'
          : provider === 'scripted'
            ? null
            : 'Leave empty to use the base URL from Settings; set it to override for this job.',
        <>
          {textInput('base_url', {
            placeholder: baseUrlPlaceholder(provider, providerInfo),
            inputMode: 'url',
            disabled: provider === 'scripted',
            className: 'mono',
          })}
          {provider === 'openai_compatible' && (
            <BaseUrlPresets current={form.base_url} testIdPrefix="job-base-url-preset" onPick={(url) => update('base_url', url)} />
          )}
        </>,
        { optional: provider === 'openai' || provider === 'anthropic' },
      )}
      {provider !== 'scripted' &&
        row(
          'no_key',
          'No key',
          form.no_key
            ? 'No key is sent to this job’s base URL. A stored key goes only to the base URL saved in Settings.'
            : 'Send no API key: for a server of your own that needs none, at the base URL above.',
          toggle('no_key'),
        )}
      {row(
        'model',
        'Model',
        modelHint('model', 'The root agent and most subagents run on it.'),
        <>
          {textInput('model', { list: id('models'), placeholder: defaultModels[provider].model, className: 'mono' })}
          <ModelOptions id={id('models')} models={models} />
        </>,
      )}
      {row(
        'light_model',
        'Light model',
        modelHint('light_model', 'For profiles that ask for it (explore). Empty: the model above.'),
        textInput('light_model', { list: id('models'), placeholder: 'same as the model', className: 'mono' }),
        { optional: true },
      )}
    </FormSection>
  )
}
