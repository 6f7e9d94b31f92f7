import type { ReactNode } from 'react'
import type { ProviderInfo } from '@core/api/contract'
import type { ProviderId } from '@core/api/job-form'
import { keySetText } from '../../settings/settings-model'
import type { JobFields } from './job-fields'

/**
 * What the provider row says. Plain functions, not components: nothing to say is null, so the
 * row leaves out its hint or error block.
 */

/** Where the provider's key comes from (scripted: why it needs none), with a link to Settings. */
export function keyHint(provider: ProviderId, info: ProviderInfo | undefined, fields: JobFields): ReactNode {
  if (provider === 'scripted') return 'A built-in plan that explores the project. No key, no cost: good for trying Arbor out.'
  if (!info) return null
  const set = keySetText(info.key)
  const where =
    info.key.source === 'environment'
      ? `Key from ${info.key.env_var ?? 'the environment'}`
      : info.key.source === 'stored'
        ? 'Key stored in settings'
        : provider === 'openai_compatible'
          ? 'No key: fine for a server on this machine'
          : 'No key set'
  return (
    <>
      <span className={info.key.source === 'none' && provider !== 'openai_compatible' ? 'form-note warn' : undefined}>
        {where}
        {set ? ` · ${set}` : ''}
      </span>{' '}
      ·{' '}
      <button type="button" className="inline-link" data-testid="job-open-settings" onClick={() => fields.openSettings('provider')}>
        Settings
      </button>
    </>
  )
}

/** The provider's error, with a way to its settings (the scripted provider has none). */
export function providerError(provider: ProviderId, fields: JobFields): ReactNode {
  const message = fields.errorOf('provider')
  if (!message) return undefined
  return (
    <>
      <span>{message}</span>
      {provider !== 'scripted' && (
        <span className="form-error__actions">
          <button
            type="button"
            className="button small"
            data-testid="job-provider-settings"
            onClick={() => fields.openSettings('provider')}
          >
            Open Settings ▸ Providers
          </button>
        </span>
      )}
    </>
  )
}

/** The base URL field's placeholder: the URL from settings, or an example local server for OpenAI-compatible. */
export function baseUrlPlaceholder(provider: ProviderId, info: ProviderInfo | undefined): string {
  if (provider === 'scripted') return 'not used by the scripted provider'
  if (provider === 'openai_compatible') return 'http://localhost:11434/v1'
  return info?.base_url ?? info?.default_base_url ?? ''
}
