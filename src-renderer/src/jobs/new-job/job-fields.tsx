import type { ReactNode } from 'react'
import { FormRow, Switch } from '../../settings/FormControls'
import type { FormField, NewJobForm } from '../NewJobForm'

/** The dialog's state that its fields read and write. */
export interface JobFieldState {
  form: NewJobForm
  /** A DOM id unique to this dialog, for a field, a hint or a datalist. */
  id(name: string): string
  errorOf(field: FormField): string | undefined
  update<K extends keyof NewJobForm>(field: K, value: NewJobForm[K]): void
  markTouched(field: FormField): void
  /** Opens the settings page (at a model's price, if given); focus comes back to `field` after. */
  openSettings(field: FormField, priceModel?: string): void
}

/** What the dialog hands its sections: its state, and the markup every field shares. */
export type JobFields = ReturnType<typeof jobFields>

type ToggleField = 'no_key' | 'spawn_paused' | 'allow_network' | 'no_sandbox'
type TextField = Exclude<FormField, 'provider' | 'no_sandbox_confirmed' | 'auto_approve' | 'subagent_approvals' | ToggleField>

export function jobFields(state: JobFieldState) {
  const { id, errorOf } = state
  /** Props every input gets: its id, test id, and the error and hint it is described by. */
  const fieldProps = (field: FormField) => ({
    id: id(field),
    'data-testid': `job-field-${field}`,
    'aria-invalid': errorOf(field) ? true : undefined,
    'aria-describedby': `${id(field)}-error ${id(field)}-hint`,
    onBlur: () => state.markTouched(field),
  })
  /** A field's row: label, control, then its error (`extra.error`, else the field's) and hint. */
  const row = (
    field: FormField,
    label: ReactNode,
    hint: ReactNode,
    control: ReactNode,
    extra: { error?: ReactNode; optional?: boolean } = {},
  ) => (
    <FormRow
      label={label}
      htmlFor={id(field)}
      optional={extra.optional}
      error={extra.error ?? errorOf(field)}
      errorId={`${id(field)}-error`}
      errorTestId={`job-error-${field}`}
      hint={hint}
      hintId={`${id(field)}-hint`}
    >
      {control}
    </FormRow>
  )
  const textInput = (
    field: TextField,
    props: { placeholder?: string; inputMode?: 'numeric' | 'decimal' | 'url'; className?: string; list?: string; disabled?: boolean } = {},
  ) => (
    <input
      {...fieldProps(field)}
      className={`input ${props.className ?? ''}`}
      type="text"
      autoComplete="off"
      spellCheck={false}
      inputMode={props.inputMode}
      placeholder={props.placeholder}
      list={props.list}
      disabled={props.disabled}
      value={state.form[field]}
      onChange={(event) => state.update(field, event.target.value)}
    />
  )
  /** A switch is described by its hint only: it has no error of its own. */
  const toggle = (field: ToggleField) => (
    <Switch
      id={id(field)}
      testId={`job-field-${field}`}
      describedBy={`${id(field)}-hint`}
      checked={state.form[field]}
      onChange={(checked) => state.update(field, checked)}
    />
  )
  return { ...state, fieldProps, row, textInput, toggle }
}
