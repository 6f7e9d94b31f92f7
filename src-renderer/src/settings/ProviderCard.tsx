import { useEffect, useId, useMemo, useRef, useState } from 'react'
import { apiContract, type ConnectionTest, type KeyStorageInfo, type PriceRow, type ProviderInfo } from '@core/api/contract'
import { suggestedModels } from '@core/api/job-form'
import { priceTable } from './price-table'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorFields, errorText } from '../store/error-text'
import { BaseUrlPresets, FormRow, ModelOptions } from './FormControls'
import {
  baseUrlPlaceholder,
  connectionSummary,
  keySetText,
  keySourceText,
  providerConfigInput,
  providerDraft,
  sameDraft,
  withKey,
  withProviderInfo,
  type DraftErrors,
  type ProviderDraft,
} from './settings-model'

type Outcome = { kind: 'ok' | 'error'; text: string } | null

/**
 * One provider: its key (write-only: the input is uncontrolled, read once on Save and emptied
 * after, so the key is never in React state, the store or storage), its base URL and default
 * models, and a connection test.
 */
export function ProviderCard(props: { info: ProviderInfo; storage: KeyStorageInfo; prices: PriceRow[] }) {
  const { info, storage } = props
  const base = useId()
  const keyRef = useRef<HTMLInputElement>(null)
  const [keyTyped, setKeyTyped] = useState(false)
  const [keyBusy, setKeyBusy] = useState(false)
  const [keyOutcome, setKeyOutcome] = useState<Outcome>(null)
  const [draft, setDraft] = useState<ProviderDraft>(() => providerDraft(info))
  const [draftErrors, setDraftErrors] = useState<DraftErrors>({})
  const [configBusy, setConfigBusy] = useState(false)
  const [configOutcome, setConfigOutcome] = useState<Outcome>(null)
  const [testing, setTesting] = useState(false)
  const [test, setTest] = useState<ConnectionTest | null>(null)

  const saved = useMemo(() => providerDraft(info), [info])
  const dirty = !sameDraft(draft, saved)
  const models = useMemo(() => suggestedModels(info.id, priceTable(props.prices)), [info.id, props.prices])
  const keyDisabled = !storage.available
  const set = keySetText(info.key)

  // A transient "Saved" fades after a few seconds.
  useEffect(() => {
    if (!configOutcome || configOutcome.kind !== 'ok') return
    const timer = setTimeout(() => setConfigOutcome(null), 4000)
    return () => clearTimeout(timer)
  }, [configOutcome])

  const saveKey = async () => {
    const input = keyRef.current
    if (!input || keyBusy || keyDisabled) return
    const checked = apiContract.setProviderKey.shape.key.safeParse(input.value)
    if (!checked.success) {
      setKeyOutcome({ kind: 'error', text: checked.error.issues[0]?.message ?? 'not a key' })
      return
    }
    setKeyBusy(true)
    setKeyOutcome(null)
    try {
      const { key } = await api().setProviderKey({ provider: info.id, key: checked.data })
      input.value = ''
      setKeyTyped(false)
      useArbor.getState().patchSettings((view) => withKey(view, info.id, key))
      setKeyOutcome({ kind: 'ok', text: `Key saved · …${key.last4 ?? ''}` })
    } catch (error) {
      setKeyOutcome({ kind: 'error', text: errorFields(error)?.key ?? errorText(error) })
    } finally {
      setKeyBusy(false)
    }
  }

  const removeKey = async () => {
    setKeyBusy(true)
    setKeyOutcome(null)
    try {
      const { key } = await api().clearProviderKey({ provider: info.id })
      useArbor.getState().patchSettings((view) => withKey(view, info.id, key))
      setKeyOutcome({
        kind: 'ok',
        text: key.source === 'environment' ? `Stored key removed; ${key.env_var ?? 'the environment'} is used now` : 'Stored key removed',
      })
    } catch (error) {
      setKeyOutcome({ kind: 'error', text: errorText(error) })
    } finally {
      setKeyBusy(false)
    }
  }

  const saveConfig = async () => {
    const checked = providerConfigInput(info.id, draft)
    if (!checked.ok) {
      setDraftErrors(checked.errors)
      return
    }
    setConfigBusy(true)
    setDraftErrors({})
    setConfigOutcome(null)
    try {
      const { provider } = await api().setProviderConfig(checked.input)
      useArbor.getState().patchSettings((view) => withProviderInfo(view, provider))
      setDraft(providerDraft(provider))
      setConfigOutcome({ kind: 'ok', text: 'Saved' })
    } catch (error) {
      const fields = errorFields(error)
      if (fields) setDraftErrors({ base_url: fields.base_url, model: fields.model, light_model: fields.light_model })
      setConfigOutcome({ kind: 'error', text: errorText(error) })
    } finally {
      setConfigBusy(false)
    }
  }

  /** Tests what the form shows, saved or not: a key typed and not saved is sent for this one request. */
  const testConnection = async () => {
    const checked = providerConfigInput(info.id, draft)
    if (!checked.ok && (checked.errors.base_url || checked.errors.model)) {
      setDraftErrors(checked.errors)
      return
    }
    setTesting(true)
    setTest(null)
    try {
      const baseUrl = draft.base_url.trim()
      const model = draft.model.trim()
      const key = keyRef.current?.value.trim() ?? ''
      setTest(
        await api().testConnection({
          provider: info.id,
          ...(baseUrl ? { base_url: baseUrl } : {}),
          ...(model ? { model } : {}),
          ...(key ? { key } : {}),
        }),
      )
    } catch (error) {
      setTest({ ok: false, latency_ms: 0, status: null, message: errorText(error) })
    } finally {
      setTesting(false)
    }
  }

  const change = (field: keyof ProviderDraft, value: string) => {
    setDraft((current) => ({ ...current, [field]: value }))
    setDraftErrors((current) => (current[field] ? { ...current, [field]: undefined } : current))
  }

  const field = (name: keyof ProviderDraft, props: { placeholder: string; list?: string }) => (
    <input
      id={`${base}-${name}`}
      className="input mono"
      type="text"
      autoComplete="off"
      spellCheck={false}
      data-testid={`${name === 'base_url' ? 'base-url' : name === 'model' ? 'model' : 'light-model'}-${info.id}`}
      placeholder={props.placeholder}
      list={props.list}
      value={draft[name]}
      aria-invalid={draftErrors[name] ? true : undefined}
      aria-describedby={`${base}-${name}-error`}
      onChange={(event) => change(name, event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault()
          void saveConfig()
        }
      }}
    />
  )

  const summary = test ? connectionSummary(test) : null

  return (
    <article className="provider-card" data-testid={`provider-${info.id}`} aria-labelledby={`${base}-title`}>
      <header className="provider-card__head">
        <h3 className="provider-card__title" id={`${base}-title`}>
          {info.label}
        </h3>
        <span className={`key-pill ${info.key.source}`} data-testid={`key-status-${info.id}`} data-source={info.key.source}>
          <span className="key-pill__dot" aria-hidden />
          {keySourceText(info.id, info.key)}
          {set && <span className="key-pill__set">{set}</span>}
        </span>
      </header>

      <div className="form-grid">
        <FormRow
          label="API key"
          htmlFor={`${base}-key`}
          error={keyOutcome?.kind === 'error' ? keyOutcome.text : undefined}
          errorId={`${base}-key-error`}
          errorTestId={`key-error-${info.id}`}
          hint={
            keyDisabled
              ? 'Saving keys is not available here (see above).'
              : info.key.source === 'environment'
                ? `A key saved here is used instead of ${info.key.env_var ?? 'the environment variable'}.`
                : info.id === 'openai_compatible'
                  ? 'Only for a server that asks for one; local servers need none.'
                  : 'Saved write-only: it is never shown again, only its last four characters.'
          }
          hintId={`${base}-key-hint`}
        >
          <form
            className="input-row"
            aria-label={`${info.label} API key`}
            onSubmit={(event) => {
              event.preventDefault()
              void saveKey()
            }}
          >
            <input
              ref={keyRef}
              id={`${base}-key`}
              className="input mono"
              type="password"
              name={`arbor-key-${info.id}`}
              autoComplete="off"
              spellCheck={false}
              data-testid={`key-input-${info.id}`}
              placeholder={set ? `Replace the key (${set})` : 'Paste a key'}
              disabled={keyDisabled || keyBusy}
              aria-describedby={`${base}-key-error ${base}-key-hint`}
              onInput={(event) => setKeyTyped(event.currentTarget.value.trim().length > 0)}
            />
            <button
              type="submit"
              className="button primary"
              data-testid={`key-save-${info.id}`}
              disabled={keyDisabled || keyBusy || !keyTyped}
            >
              Save key
            </button>
            <button
              type="button"
              className="button"
              data-testid={`key-remove-${info.id}`}
              disabled={keyBusy || info.key.source !== 'stored'}
              title={info.key.source === 'stored' ? 'Forget the stored key' : 'No key is stored by Arbor'}
              onClick={() => void removeKey()}
            >
              Remove
            </button>
          </form>
          {keyOutcome?.kind === 'ok' && (
            <div className="form-success" role="status" data-testid={`key-saved-${info.id}`}>
              ✓ {keyOutcome.text}
            </div>
          )}
        </FormRow>

        <FormRow
          label="Base URL"
          htmlFor={`${base}-base_url`}
          optional={info.id !== 'openai_compatible'}
          error={draftErrors.base_url}
          errorId={`${base}-base_url-error`}
          hint={
            info.base_url_source === 'environment'
              ? `Empty: ${info.base_url ?? ''} from the environment.`
              : info.id === 'openai_compatible'
                ? 'Your server’s endpoint. The key goes only here; a job can set its own URL and send no key.'
                : `Empty: ${info.default_base_url}.`
          }
        >
          {field('base_url', { placeholder: baseUrlPlaceholder(info) })}
          {info.id === 'openai_compatible' && (
            <BaseUrlPresets
              current={draft.base_url}
              testIdPrefix={`base-url-preset-${info.id}`}
              onPick={(url) => change('base_url', url)}
            />
          )}
        </FormRow>

        <FormRow label="Default model" htmlFor={`${base}-model`} error={draftErrors.model} errorId={`${base}-model-error`}>
          {field('model', { placeholder: 'model id', list: `${base}-models` })}
          <ModelOptions id={`${base}-models`} models={models} />
        </FormRow>

        <FormRow
          label="Light model"
          htmlFor={`${base}-light_model`}
          optional
          error={draftErrors.light_model}
          errorId={`${base}-light_model-error`}
          hint="For profiles that ask for it (explore). Empty: the default model."
        >
          {field('light_model', { placeholder: 'same as the default model', list: `${base}-models` })}
        </FormRow>
      </div>

      <footer className="provider-card__foot">
        <div className="provider-card__test">
          <button
            type="button"
            className="button"
            data-testid={`test-connection-${info.id}`}
            disabled={testing}
            title={
              dirty ? 'Tests the base URL and model above (not saved yet) with the saved key' : 'Sends one tiny request with these settings'
            }
            onClick={() => void testConnection()}
          >
            {testing ? (
              <>
                <span className="spinner small" /> Testing…
              </>
            ) : (
              'Test connection'
            )}
          </button>
          {test && summary && (
            <div
              className={`connection-result ${test.ok ? 'ok' : 'bad'}`}
              data-testid={`connection-result-${info.id}`}
              data-ok={test.ok ? 'true' : 'false'}
              role="status"
            >
              <span className="connection-result__title">
                {test.ok ? '✓' : '✕'} {summary.title}
              </span>
              <span className="connection-result__detail">{summary.detail}</span>
            </div>
          )}
        </div>
        <div className="provider-card__save">
          {configOutcome && (
            <span
              className={configOutcome.kind === 'ok' ? 'form-success' : 'form-error'}
              role={configOutcome.kind === 'ok' ? 'status' : 'alert'}
            >
              {configOutcome.kind === 'ok' ? `✓ ${configOutcome.text}` : configOutcome.text}
            </span>
          )}
          {dirty && (
            <button
              type="button"
              className="button subtle"
              onClick={() => {
                setDraft(saved)
                setDraftErrors({})
              }}
            >
              Revert
            </button>
          )}
          <button
            type="button"
            className="button primary"
            data-testid={`provider-save-${info.id}`}
            disabled={configBusy || !dirty}
            onClick={() => void saveConfig()}
          >
            Save
          </button>
        </div>
      </footer>
    </article>
  )
}
