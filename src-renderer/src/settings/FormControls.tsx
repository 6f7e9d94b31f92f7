import type { ReactNode } from 'react'
import { baseUrlPresets } from '@core/api/job-form'

/** Building blocks shared by the new-job dialog and the settings page. */

export function FormSection(props: { title: string; id: string; description?: ReactNode; children: ReactNode }) {
  return (
    <section className="form-section" aria-labelledby={props.id}>
      <div className="form-section__head">
        <h3 className="form-section__title" id={props.id}>
          {props.title}
        </h3>
        {props.description && <p className="form-section__description">{props.description}</p>}
      </div>
      <div className="form-grid">{props.children}</div>
    </section>
  )
}

/** One label/field row of the two-column grid: the error (red, announced) and the hint go under the field. */
export function FormRow(props: {
  label: ReactNode
  htmlFor?: string
  labelId?: string
  error?: ReactNode
  errorId?: string
  errorTestId?: string
  hint?: ReactNode
  hintId?: string
  optional?: boolean
  children: ReactNode
}) {
  return (
    <div className={`form-row${props.error ? ' has-error' : ''}`}>
      <label className="form-row__label" htmlFor={props.htmlFor} id={props.labelId}>
        {props.label}
        {props.optional && <span className="form-row__optional">optional</span>}
      </label>
      <div className="form-row__field">
        {props.children}
        {props.error ? (
          <div className="form-error" role="alert" id={props.errorId} data-testid={props.errorTestId}>
            {props.error}
          </div>
        ) : null}
        {props.hint ? (
          <div className="form-hint" id={props.hintId}>
            {props.hint}
          </div>
        ) : null}
      </div>
    </div>
  )
}

/** Suggestions for a model input; free text stays allowed. */
export function ModelOptions(props: { id: string; models: readonly string[] }) {
  return (
    <datalist id={props.id}>
      {props.models.map((model) => (
        <option key={model} value={model} />
      ))}
    </datalist>
  )
}

/** Ollama / LM Studio / vLLM at their usual local ports. */
export function BaseUrlPresets(props: { current: string; onPick(url: string): void; testIdPrefix: string; disabled?: boolean }) {
  return (
    <div className="preset-row" role="group" aria-label="Local server presets">
      <span className="preset-row__label">Presets</span>
      {baseUrlPresets.map((preset) => (
        <button
          key={preset.name}
          type="button"
          className={`chip${props.current.trim() === preset.url ? ' active' : ''}`}
          data-testid={`${props.testIdPrefix}-${preset.name.toLowerCase().replace(/\s+/g, '-')}`}
          title={preset.url}
          disabled={props.disabled}
          aria-pressed={props.current.trim() === preset.url}
          onClick={() => props.onPick(preset.url)}
        >
          {preset.name}
        </button>
      ))}
    </div>
  )
}

/** A checkbox drawn as a switch; the label is the grid row's. */
export function Switch(props: { id: string; checked: boolean; onChange(checked: boolean): void; testId?: string; describedBy?: string }) {
  return (
    <span className="switch form-switch">
      <input
        type="checkbox"
        id={props.id}
        data-testid={props.testId}
        checked={props.checked}
        aria-describedby={props.describedBy}
        onChange={(event) => props.onChange(event.target.checked)}
      />
      <span className="switch__track" aria-hidden />
    </span>
  )
}
