import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { noSandboxConfirmation, type FieldErrors, type ProviderId } from '@core/api/job-form'
import { defaultPrices } from '@core/providers/pricing'
import { rememberFocus, submitShortcut, trapTab } from '../util/focus'
import { useArbor } from '../store'
import { ApprovalsSection } from './new-job/ApprovalsSection'
import { jobFields } from './new-job/job-fields'
import { LimitsSection } from './new-job/LimitsSection'
import { ModelSection } from './new-job/ModelSection'
import { SandboxSection } from './new-job/SandboxSection'
import { TaskSection } from './new-job/TaskSection'
import { useJobDefaults } from './new-job/useJobDefaults'
import { priceTable } from '../settings/price-table'
import {
  awaitsSandboxConfirmation,
  dropStaleErrors,
  footerMessage,
  firstErrorField,
  hasErrors,
  serverErrors,
  validateNewJob,
  withField,
  withProvider,
  type FormField,
  type NewJobForm,
} from './NewJobForm'

/** The new-job dialog: renders nothing while closed (store: newJobOpen). */
export function NewJobDialog() {
  const open = useArbor((state) => state.newJobOpen)
  return open ? <NewJobDialogBody /> : null
}

function NewJobDialogBody() {
  const settings = useArbor((state) => state.settingsView)
  const settingsOpen = useArbor((state) => state.settingsOpen)
  const projectName = useArbor((state) => state.project?.name ?? null)
  // Focus goes back where it was when the dialog closes.
  useEffect(() => rememberFocus(), [])
  const { form, setForm, profiles, loadErrors } = useJobDefaults()
  /** Fields edited and then left: their errors show before the first submit. */
  const [touched, setTouched] = useState<ReadonlySet<FormField>>(() => new Set())
  const edited = useRef(new Set<FormField>())
  const [submitted, setSubmitted] = useState(false)
  const [server, setServer] = useState<FieldErrors>({})
  // What of the server's refusal has no field of its own; the footer's pointer follows `server`.
  const [refusalNote, setRefusalNote] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const dialogRef = useRef<HTMLDivElement>(null)
  /** The field to focus again when the settings page (opened from a field) closes. */
  const returnField = useRef<FormField | null>(null)
  const base = useId()
  const id = (name: string) => `${base}-${name}`

  // Back from settings: a key or a price may have been added, so the server's word on them is stale.
  const wasSettingsOpen = useRef(settingsOpen)
  useEffect(() => {
    if (wasSettingsOpen.current && !settingsOpen) {
      setServer((current) => dropStaleErrors(dropStaleErrors(current, 'provider'), 'model'))
      const dialog = dialogRef.current
      const field = returnField.current
      returnField.current = null
      if (dialog && !dialog.contains(document.activeElement)) {
        dialog.querySelector<HTMLElement>(`[data-testid="job-field-${field ?? 'task'}"]`)?.focus()
      }
    }
    wasSettingsOpen.current = settingsOpen
  }, [settingsOpen])

  const prices = useMemo(() => (settings ? priceTable(settings.prices) : defaultPrices), [settings])
  const profileNames = useMemo(() => profiles?.profiles.map((profile) => profile.name) ?? null, [profiles])
  const validation = useMemo(() => (form ? validateNewJob(form, { prices, profiles: profileNames }) : null), [form, prices, profileNames])

  const close = () => useArbor.getState().closeNewJob()
  const openSettings = (field: FormField, priceModel?: string) => {
    returnField.current = field
    useArbor.getState().openSettings(priceModel ? { priceModel } : undefined)
  }

  /** Focuses a field and scrolls its whole block (error and hint included) into view. */
  const focusField = (field: FormField | null) => {
    const element = field ? dialogRef.current?.querySelector<HTMLElement>(`[data-testid="job-field-${field}"]`) : null
    if (!element) return
    element.focus({ preventScroll: true })
    element.closest('.form-row__field')?.scrollIntoView({ block: 'nearest' })
  }

  const submit = async () => {
    if (!form || !validation || busy) return
    setSubmitted(true)
    setRefusalNote(null)
    const errors = { ...validation.errors, ...server }
    if (!validation.job || hasErrors(errors)) {
      focusField(firstErrorField(errors))
      return
    }
    setBusy(true)
    try {
      await useArbor.getState().startAgentJob(validation.job)
    } catch (error) {
      const refused = serverErrors(error)
      setServer(refused.fields)
      setRefusalNote(refused.note)
      setBusy(false)
      focusField(firstErrorField(refused.fields))
    }
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      close()
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault()
      event.stopPropagation()
      void submit()
    } else if (event.key === 'Tab') {
      trapTab(event.nativeEvent, dialogRef.current)
    }
  }

  const update = <K extends keyof NewJobForm>(field: K, value: NewJobForm[K]) => {
    edited.current.add(field)
    setForm((current) => (current ? withField(current, field, value) : current))
    setServer((current) => dropStaleErrors(current, field))
  }
  const changeProvider = (provider: ProviderId) => {
    setForm((current) => (current ? withProvider(current, provider, settings) : current))
    setServer((current) => dropStaleErrors(current, 'provider'))
  }
  const markTouched = (field: FormField) => {
    if (edited.current.has(field)) setTouched((current) => (current.has(field) ? current : new Set(current).add(field)))
  }

  const errorOf = (field: FormField): string | undefined =>
    server[field] ?? (submitted || touched.has(field) ? validation?.errors[field] : undefined)

  const formMessage = footerMessage(server, refusalNote)
  const fields = form && jobFields({ form, id, errorOf, update, markTouched, openSettings })
  const gated = !!form && awaitsSandboxConfirmation(form)

  return (
    <div className="modal-backdrop" inert={settingsOpen} data-testid="new-job-backdrop">
      <div
        ref={dialogRef}
        className="modal new-job-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={id('title')}
        aria-describedby={id('subtitle')}
        data-testid="new-job-dialog"
        onKeyDown={onKeyDown}
      >
        <header className="modal__header">
          <div>
            <h2 className="modal__title" id={id('title')}>
              New job
            </h2>
            <p className="modal__subtitle" id={id('subtitle')}>
              {projectName ? (
                <>
                  Runs an agent on <strong>{projectName}</strong>
                </>
              ) : (
                'Runs an agent on the open project'
              )}
            </p>
          </div>
          <button type="button" className="icon-button modal__close" aria-label="Close" data-testid="new-job-close" onClick={close}>
            ×
          </button>
        </header>

        {!fields ? (
          <div className="modal__body modal__loading" aria-busy="true">
            <span className="spinner" /> Loading this project's settings…
          </div>
        ) : (
          <div className="modal__body">
            {loadErrors.length > 0 && (
              <div className="callout warn" data-testid="new-job-load-errors">
                {loadErrors.map((message) => (
                  <div key={message}>{message}</div>
                ))}
              </div>
            )}

            <TaskSection fields={fields} profiles={profiles} />
            <ModelSection fields={fields} settings={settings} prices={prices} onProviderChange={changeProvider} />
            <LimitsSection fields={fields} prices={prices} />
            <SandboxSection fields={fields} />
            <ApprovalsSection fields={fields} />
          </div>
        )}

        <footer className="modal__footer">
          {formMessage !== null ? (
            <div className="form-error form-error--banner" role="alert" data-testid="job-error-form">
              {formMessage}
            </div>
          ) : gated ? (
            <span className="form-note warn" data-testid="start-gated">
              Tick “{noSandboxConfirmation}” to start without the sandbox.
            </span>
          ) : (
            <span className="modal__keys">
              <kbd>{submitShortcut()}</kbd> start <kbd>Esc</kbd> close
            </span>
          )}
          <span className="modal__actions">
            <button type="button" className="button" data-testid="new-job-cancel" onClick={close}>
              Cancel
            </button>
            <button
              type="button"
              className="button primary"
              data-testid="start-job"
              disabled={!form || busy || gated}
              aria-busy={busy || undefined}
              onClick={() => void submit()}
            >
              {busy ? (
                <>
                  <span className="spinner small" /> Starting…
                </>
              ) : (
                'Start job'
              )}
            </button>
          </span>
        </footer>
      </div>
    </div>
  )
}
