import { useState } from 'react'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import { FormRow } from './FormControls'

/**
 * The cap on concurrent model calls per API endpoint (provider, base URL and key): calls beyond it
 * wait for a free slot, so a wide tree does not flood a local server. Applies from the next call.
 */
export function ModelCallsCard(props: { value: number }) {
  const [text, setText] = useState(String(props.value))
  const [error, setError] = useState<string | null>(null)
  const [saved, setSaved] = useState(false)
  const save = async () => {
    setError(null)
    setSaved(false)
    const value = Number(text.trim())
    if (!Number.isInteger(value) || value < 1) return setError('a whole number, at least 1')
    try {
      const { max_model_calls } = await api().setMaxModelCalls({ value })
      useArbor.getState().patchSettings((view) => ({ ...view, max_model_calls }))
      setText(String(max_model_calls))
      setSaved(true)
    } catch (failure) {
      setError(errorText(failure))
    }
  }
  return (
    <article className="provider-card" data-testid="model-calls" aria-labelledby="model-calls-title">
      <header className="provider-card__head">
        <h3 className="provider-card__title" id="model-calls-title">
          Concurrent model calls
        </h3>
      </header>
      <div className="form-grid">
        <FormRow
          label="Per provider"
          htmlFor="model-calls-input"
          error={error ?? undefined}
          hint={
            <>
              Model calls in flight at once for each provider and key (default 8); more wait for a slot. A local server (Ollama, vLLM) may
              want fewer. <code>arbor run --max-model-calls N</code> sets it for one run.
            </>
          }
        >
          <input
            id="model-calls-input"
            className="input narrow"
            inputMode="numeric"
            data-testid="model-calls-input"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </FormRow>
      </div>
      <footer className="provider-card__foot">
        <div className="provider-card__save">
          {saved && <span className="muted small">Saved</span>}
          <button type="button" className="button" data-testid="model-calls-save" onClick={() => void save()}>
            Save
          </button>
        </div>
      </footer>
    </article>
  )
}
