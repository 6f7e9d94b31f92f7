import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import type { ProfileList } from '../../../src-main/core/api/contract'
import {
  defaultModels,
  defaultNewJob,
  providerIds,
  providerLabels,
  suggestedModels,
  type FieldErrors,
  type ProviderId,
} from '../../../src-main/core/api/job-form'
import { defaultPrices, priceFor } from '../../../src-main/core/providers/pricing'
import { BaseUrlPresets, FormRow, FormSection, ModelOptions, Switch } from '../settings/FormControls'
import { rememberFocus, submitShortcut, trapTab } from '../settings/focus'
import { keySetText } from '../settings/settings-model'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/types'
import {
  describePrice,
  dropStaleErrors,
  firstErrorField,
  formFromJob,
  groupProfiles,
  hasErrors,
  priceTable,
  serverErrors,
  unpricedModels,
  validateNewJob,
  withProvider,
  type FormField,
  type NewJobForm,
} from './NewJobForm'

/** The new-job dialog: renders nothing while closed (store: newJobOpen). */
export function NewJobDialog() {
  const open = useArbor((state) => state.newJobOpen)
  return open ? <NewJobDialogBody /> : null
}

type TextField = Exclude<FormField, 'provider' | 'auto_approve' | 'spawn_paused'>

function NewJobDialogBody() {
  const settings = useArbor((state) => state.settingsView)
  const settingsOpen = useArbor((state) => state.settingsOpen)
  const projectName = useArbor((state) => state.project?.name ?? null)
  const [form, setForm] = useState<NewJobForm | null>(null)
  const [profiles, setProfiles] = useState<ProfileList | null>(null)
  const [loadErrors, setLoadErrors] = useState<string[]>([])
  /** Fields edited and then left: their errors show before the first submit. */
  const [touched, setTouched] = useState<ReadonlySet<FormField>>(() => new Set())
  const edited = useRef(new Set<FormField>())
  const [submitted, setSubmitted] = useState(false)
  const [server, setServer] = useState<FieldErrors>({})
  const [formMessage, setFormMessage] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const dialogRef = useRef<HTMLDivElement>(null)
  /** The field to focus again when the settings page (opened from a field) closes. */
  const returnField = useRef<FormField | null>(null)
  const base = useId()
  const id = (name: string) => `${base}-${name}`

  useEffect(() => {
    const restore = rememberFocus()
    let cancelled = false
    const store = useArbor.getState()
    void Promise.allSettled([api().getJobDefaults({}), api().listProfiles({}), store.loadSettings()]).then(([defaults, list, view]) => {
      if (cancelled) return
      const problems: string[] = []
      if (defaults.status === 'rejected') problems.push(`Could not read this project's last job settings: ${errorText(defaults.reason)}`)
      if (list.status === 'fulfilled') setProfiles(list.value)
      else problems.push(`Could not list the profiles: ${errorText(list.reason)}`)
      if (view.status === 'rejected') problems.push(`Could not read the settings (providers and prices): ${errorText(view.reason)}`)
      setLoadErrors(problems)
      setForm(formFromJob(defaults.status === 'fulfilled' ? defaults.value.job : defaultNewJob()))
    })
    return () => {
      cancelled = true
      restore()
    }
  }, [])

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
    setFormMessage(null)
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
      setFormMessage(refused.message)
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
    setForm((current) => (current ? { ...current, [field]: value } : current))
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

  /** Props every input gets: its id, test id, and the error and hint it is described by. */
  const fieldProps = (field: FormField) => ({
    id: id(field),
    'data-testid': `job-field-${field}`,
    'aria-invalid': errorOf(field) ? true : undefined,
    'aria-describedby': `${id(field)}-error ${id(field)}-hint`,
    onBlur: () => markTouched(field),
  })
  const row = (field: FormField, label: ReactNode, hint: ReactNode, control: ReactNode, extra: { error?: ReactNode; optional?: boolean } = {}) => (
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
  const textInput = (field: TextField, props: { placeholder?: string; inputMode?: 'numeric' | 'decimal' | 'url'; className?: string; list?: string; disabled?: boolean } = {}) => (
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
      value={form?.[field] ?? ''}
      onChange={(event) => update(field, event.target.value)}
    />
  )

  const provider = form?.provider ?? 'scripted'
  const providerInfo = provider === 'scripted' ? undefined : settings?.providers.find((info) => info.id === provider)
  const models = useMemo(() => suggestedModels(provider, prices), [provider, prices])
  const unpriced = form ? unpricedModels(form, prices) : []
  const grouped = groupProfiles(profiles?.profiles ?? [])
  const selectedProfile = profiles?.profiles.find((profile) => profile.name === form?.profile)
  const profileMissing = !!form && !!profiles && !selectedProfile

  const modelHint = (field: 'model' | 'light_model', purpose: string): ReactNode => {
    const model = form?.[field].trim() ?? ''
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

  const costError = (): ReactNode => {
    const message = errorOf('job_cost_budget')
    if (!message) return undefined
    const missing = unpriced.filter(Boolean)
    return (
      <>
        <span>{message}</span>
        {missing.length > 0 && (
          <span className="form-error__actions">
            {missing.map((model) => (
              <button
                key={model}
                type="button"
                className="button small"
                data-testid="job-add-price"
                data-model={model}
                onClick={() => openSettings('job_cost_budget', model)}
              >
                Add a price for “{model}”
              </button>
            ))}
          </span>
        )}
      </>
    )
  }

  const providerError = (): ReactNode => {
    const message = errorOf('provider')
    if (!message) return undefined
    return (
      <>
        <span>{message}</span>
        {provider !== 'scripted' && (
          <span className="form-error__actions">
            <button type="button" className="button small" data-testid="job-provider-settings" onClick={() => openSettings('provider')}>
              Open Settings ▸ Providers
            </button>
          </span>
        )}
      </>
    )
  }

  const keyHint = (): ReactNode => {
    if (provider === 'scripted') return 'A built-in plan that explores the project. No key, no cost: good for trying Arbor out.'
    if (!providerInfo) return null
    const set = keySetText(providerInfo.key)
    const where =
      providerInfo.key.source === 'environment'
        ? `Key from ${providerInfo.key.env_var ?? 'the environment'}`
        : providerInfo.key.source === 'stored'
          ? 'Key stored in settings'
          : provider === 'openai_compatible'
            ? 'No key: fine for a server on this machine'
            : 'No key set'
    return (
      <>
        <span className={providerInfo.key.source === 'none' && provider !== 'openai_compatible' ? 'form-note warn' : undefined}>
          {where}
          {set ? ` · ${set}` : ''}
        </span>{' '}
        ·{' '}
        <button type="button" className="inline-link" data-testid="job-open-settings" onClick={() => openSettings('provider')}>
          Settings
        </button>
      </>
    )
  }

  const baseUrlPlaceholder =
    provider === 'scripted'
      ? 'not used by the scripted provider'
      : provider === 'openai_compatible'
        ? 'http://localhost:11434/v1'
        : (providerInfo?.base_url ?? providerInfo?.default_base_url ?? '')

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

        {!form ? (
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

            <FormSection title="Task" id={id('s-task')}>
              {row(
                'task',
                'Task',
                'What the root agent should do. It can hand parts of it to subagents.',
                <textarea
                  {...fieldProps('task')}
                  className="input task-input"
                  rows={5}
                  autoFocus
                  spellCheck
                  placeholder="e.g. Find where tax is computed and add a test for rounding"
                  value={form.task}
                  onChange={(event) => update('task', event.target.value)}
                />,
              )}
              {row(
                'profile',
                'Profile',
                null,
                <>
                  <select
                    {...fieldProps('profile')}
                    className="input select"
                    value={form.profile}
                    onChange={(event) => update('profile', event.target.value)}
                  >
                    {profileMissing && <option value={form.profile}>{form.profile} (not found)</option>}
                    {!profiles && <option value={form.profile}>{form.profile}</option>}
                    {grouped.builtin.length > 0 && (
                      <optgroup label="Built-in">
                        {grouped.builtin.map((profile) => (
                          <option key={profile.name} value={profile.name}>
                            {profile.name}
                          </option>
                        ))}
                      </optgroup>
                    )}
                    {grouped.project.length > 0 && (
                      <optgroup label="This project">
                        {grouped.project.map((profile) => (
                          <option key={profile.name} value={profile.name}>
                            {profile.name}
                          </option>
                        ))}
                      </optgroup>
                    )}
                  </select>
                  <div className="form-hint" id={`${id('profile')}-hint`}>
                    {selectedProfile ? (
                      <>
                        <InlineCode text={selectedProfile.description} />{' '}
                        <span className="faint">
                          · {selectedProfile.source === 'builtin' ? 'built-in' : selectedProfile.source}
                          {selectedProfile.can_delegate ? ' · may delegate' : ''}
                        </span>
                      </>
                    ) : (
                      'The root agent’s tools and instructions.'
                    )}
                  </div>
                  {profiles && profiles.errors.length > 0 && (
                    <div className="callout warn profile-errors" data-testid="profile-errors">
                      <div className="callout__title">
                        {profiles.errors.length === 1 ? 'A profile file did not load' : `${profiles.errors.length} profile files did not load`}
                      </div>
                      <ul>
                        {profiles.errors.map((problem, index) => (
                          <li key={`${problem.file}-${problem.field}-${index}`}>
                            <code>{problem.file}</code> <span className="faint">·</span> <code>{problem.field}</code>: {problem.message}
                          </li>
                        ))}
                      </ul>
                    </div>
                  )}
                  {profiles && profiles.warnings.length > 0 && (
                    <ul className="form-hint profile-warnings">
                      {profiles.warnings.map((warning, index) => (
                        <li key={`${warning.file}-${index}`}>
                          <code>{warning.file}</code>: {warning.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </>,
              )}
            </FormSection>

            <FormSection title="Model" id={id('s-model')}>
              {row(
                'provider',
                'Provider',
                keyHint(),
                <select
                  {...fieldProps('provider')}
                  className="input select"
                  value={form.provider}
                  onChange={(event) => changeProvider(event.target.value as ProviderId)}
                >
                  {providerIds.map((value) => (
                    <option key={value} value={value}>
                      {providerLabels[value]}
                    </option>
                  ))}
                </select>,
                { error: providerError() },
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
                  {textInput('base_url', { placeholder: baseUrlPlaceholder, inputMode: 'url', disabled: provider === 'scripted', className: 'mono' })}
                  {provider === 'openai_compatible' && (
                    <BaseUrlPresets current={form.base_url} testIdPrefix="job-base-url-preset" onPick={(url) => update('base_url', url)} />
                  )}
                </>,
                { optional: provider === 'openai' || provider === 'anthropic' },
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

            <FormSection title="Limits & budgets" id={id('s-limits')}>
              {row(
                'max_depth',
                'Max depth',
                'Levels of subagents below the root (0: the root works alone; at most 8).',
                textInput('max_depth', { inputMode: 'numeric', className: 'narrow' }),
              )}
              {row(
                'max_concurrent_children',
                'Max children per parent',
                'Subagents one parent runs at once; more wait in its queue.',
                textInput('max_concurrent_children', { inputMode: 'numeric', className: 'narrow' }),
              )}
              {row(
                'job_token_budget',
                'Job token budget',
                'Tokens across the whole tree; the job stops when they are spent. Empty: none.',
                <Affix suffix="tokens">{textInput('job_token_budget', { inputMode: 'numeric', placeholder: 'none' })}</Affix>,
                { optional: true },
              )}
              {row(
                'job_cost_budget',
                'Job cost budget',
                'USD across the whole tree; needs a price for each model. Empty: none.',
                <Affix prefix="$" suffix="USD">
                  {textInput('job_cost_budget', { inputMode: 'decimal', placeholder: 'none' })}
                </Affix>,
                { error: costError(), optional: true },
              )}
              {row(
                'agent_timeout_s',
                'Per-agent timeout',
                'Wall-clock limit for each agent. Empty: none.',
                <Affix suffix="seconds">{textInput('agent_timeout_s', { inputMode: 'numeric', placeholder: 'none' })}</Affix>,
                { optional: true },
              )}
            </FormSection>

            <FormSection title="Approvals" id={id('s-approvals')}>
              {row(
                'auto_approve',
                'Subagent auto-approve',
                'Run risky commands of subagents without asking. The root agent always asks. You can change it while the job runs.',
                <Switch
                  id={id('auto_approve')}
                  testId="job-field-auto_approve"
                  describedBy={`${id('auto_approve')}-hint`}
                  checked={form.auto_approve}
                  onChange={(checked) => update('auto_approve', checked)}
                />,
              )}
              {row(
                'spawn_paused',
                'Start with spawning paused',
                'The root starts; its subagents wait in the queue until you resume spawning.',
                <Switch
                  id={id('spawn_paused')}
                  testId="job-field-spawn_paused"
                  describedBy={`${id('spawn_paused')}-hint`}
                  checked={form.spawn_paused}
                  onChange={(checked) => update('spawn_paused', checked)}
                />,
              )}
            </FormSection>
          </div>
        )}

        <footer className="modal__footer">
          {formMessage ? (
            <div className="form-error form-error--banner" role="alert" data-testid="job-error-form">
              {formMessage}
            </div>
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
              disabled={!form || busy}
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

/** An input with a unit before or after it ("$", "tokens"). */
function Affix(props: { prefix?: string; suffix?: string; children: ReactNode }) {
  return (
    <span className="affix">
      {props.prefix && <span className="affix__text affix__prefix">{props.prefix}</span>}
      {props.children}
      {props.suffix && <span className="affix__text affix__suffix">{props.suffix}</span>}
    </span>
  )
}

/** Text with `backtick` spans shown as code (profile descriptions are Markdown-ish). */
function InlineCode(props: { text: string }) {
  return (
    <>
      {props.text.split(/(`[^`]+`)/).map((part, index) =>
        part.length > 2 && part.startsWith('`') && part.endsWith('`') ? <code key={index}>{part.slice(1, -1)}</code> : part,
      )}
    </>
  )
}
