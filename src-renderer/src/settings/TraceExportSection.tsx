import { useEffect, useState } from 'react'
import type { TraceExportView } from '@core/api/contract'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import { FormRow, Switch } from './FormControls'
import { draftFromView, endpointPresets, lastSendText, traceExportRequest, type TraceExportDraft } from './trace-export-model'

/**
 * Settings ▸ Trace export: where finished jobs are sent over OTLP/HTTP. Header values are
 * write-only, as keys are: the engine sends back names and whether each is set, never a value.
 */
export function TraceExportSection() {
  const [view, setView] = useState<TraceExportView | null>(null)
  const [draft, setDraft] = useState<TraceExportDraft>({ endpoint: '', enabled: false, headers: [] })
  const [outcome, setOutcome] = useState<{ kind: 'saved' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)

  const show = (next: TraceExportView) => {
    setView(next)
    setDraft(draftFromView(next))
  }

  useEffect(() => {
    api()
      .getTraceExport({})
      .then(show, (error: unknown) => setOutcome({ kind: 'error', text: errorText(error) }))
  }, [])

  const save = async () => {
    const checked = traceExportRequest(draft)
    if (!checked.ok) return setOutcome({ kind: 'error', text: checked.error })
    setBusy(true)
    try {
      show(await api().setTraceExport(checked.input))
      setOutcome({ kind: 'saved', text: 'Saved' })
    } catch (error) {
      setOutcome({ kind: 'error', text: errorText(error) })
    } finally {
      setBusy(false)
    }
  }

  const changeHeader = (index: number, patch: Partial<TraceExportDraft['headers'][number]>) =>
    setDraft((current) => ({ ...current, headers: current.headers.map((header, at) => (at === index ? { ...header, ...patch } : header)) }))
  const last = view ? lastSendText(view) : null

  return (
    <article className="provider-card" data-testid="trace-export" aria-labelledby="trace-export-title">
      <header className="provider-card__head">
        <h3 className="provider-card__title" id="trace-export-title">
          OTLP/HTTP collector
        </h3>
        <span className={`key-pill ${view?.enabled ? 'stored' : 'none'}`} data-testid="trace-export-status">
          <span className="key-pill__dot" aria-hidden />
          {view?.enabled ? 'On: every finished job is sent' : 'Off'}
        </span>
      </header>
      <form
        className="form-grid"
        aria-label="Trace export"
        onSubmit={(event) => {
          event.preventDefault()
          void save()
        }}
      >
        <FormRow label="Send finished jobs" htmlFor="trace-export-enabled">
          <Switch
            id="trace-export-enabled"
            testId="trace-export-enabled"
            checked={draft.enabled}
            onChange={(enabled) => setDraft({ ...draft, enabled })}
          />
        </FormRow>
        <FormRow
          label="Endpoint"
          htmlFor="trace-export-endpoint"
          hint={
            view?.url && view.url !== view.endpoint
              ? `Spans go to ${view.url}`
              : 'The full …/v1/traces URL, or a base URL without a path (/v1/traces is added).'
          }
        >
          <input
            id="trace-export-endpoint"
            className="input mono"
            type="text"
            autoComplete="off"
            spellCheck={false}
            list="trace-export-presets"
            data-testid="trace-export-endpoint"
            placeholder="http://localhost:4318/v1/traces"
            value={draft.endpoint}
            onChange={(event) => setDraft({ ...draft, endpoint: event.target.value })}
          />
          <datalist id="trace-export-presets">
            {endpointPresets.map((preset) => (
              <option key={preset.url} value={preset.url} label={preset.label} />
            ))}
          </datalist>
        </FormRow>
        {draft.headers.map((header, index) => (
          <FormRow
            key={index}
            label={header.saved ? header.name : 'New header'}
            htmlFor={`trace-export-header-${index}`}
            hint={header.saved ? 'Value set; type to replace it.' : undefined}
          >
            <div className="input-row" data-testid={`trace-export-header-${index}`}>
              {!header.saved && (
                <input
                  className="input mono"
                  type="text"
                  aria-label="Header name"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="Authorization"
                  data-testid={`trace-export-header-name-${index}`}
                  value={header.name}
                  onChange={(event) => changeHeader(index, { name: event.target.value })}
                />
              )}
              <input
                id={`trace-export-header-${index}`}
                className="input mono"
                type="password"
                aria-label={`Value of ${header.name || 'the header'}`}
                autoComplete="off"
                spellCheck={false}
                placeholder={header.saved ? 'set (hidden)' : 'Basic …'}
                data-testid={`trace-export-header-value-${index}`}
                value={header.value}
                onChange={(event) => changeHeader(index, { value: event.target.value })}
              />
              <button
                type="button"
                className="button"
                data-testid={`trace-export-header-remove-${index}`}
                onClick={() => setDraft({ ...draft, headers: draft.headers.filter((_, at) => at !== index) })}
              >
                Remove
              </button>
            </div>
          </FormRow>
        ))}
        <FormRow label="">
          <div className="input-row">
            <button
              type="button"
              className="button"
              data-testid="trace-export-add-header"
              onClick={() => setDraft({ ...draft, headers: [...draft.headers, { name: '', value: '', saved: false }] })}
            >
              Add header
            </button>
            <button type="submit" className="button primary" data-testid="trace-export-save" disabled={busy}>
              Save
            </button>
            {outcome && (
              <span
                className={outcome.kind === 'error' ? 'form-error' : 'muted'}
                role={outcome.kind === 'error' ? 'alert' : 'status'}
                data-testid="trace-export-outcome"
              >
                {outcome.text}
              </span>
            )}
          </div>
        </FormRow>
      </form>
      {last && (
        <div className={`callout ${last.ok ? 'ok' : 'warn'}`} data-testid="trace-export-last-send">
          {last.text}
        </div>
      )}
    </article>
  )
}
