import type { ProfileInfo, SettingsView } from '@core/api/contract'
import {
  approvalModeOf,
  checkNewJob,
  defaultModels,
  fieldErrors,
  newJobSchema,
  type FieldErrors,
  type NewJob,
  type ProviderId,
} from '@core/api/job-form'
import type { SubagentApprovals } from '@core/trace/statuses'
import { priceFor, type ModelPrice, type PriceTable } from '@core/providers/pricing'
import { defaultMaxAgents, defaultRateLimitWaitMinutes, defaultRestartCrashed, spawnGuardDefaults, type OnBudget } from '@core/trace/model'
import { errorFields, errorText } from '../store/error-text'

/**
 * The new-job dialog's form state and its pure conversions: what the inputs hold (text, so a
 * half-typed number can be shown and refused with the schema's message) ↔ a NewJob.
 */
export interface NewJobForm {
  task: string
  profile: string
  provider: ProviderId
  base_url: string
  no_key: boolean
  model: string
  light_model: string
  max_depth: string
  max_concurrent_children: string
  job_token_budget: string
  job_cost_budget: string
  agent_timeout_s: string
  max_spawns_per_turn: string
  max_spawns_per_minute: string
  restart_crashed: string
  max_agents: string
  /** What a cap reached does: pause until raised, or stop. */
  on_budget: OnBudget
  rate_limit_wait_minutes: string
  /** Subagents' risky commands (the form's one control; auto_approve follows it). */
  subagent_approvals: SubagentApprovals
  spawn_paused: boolean
  allow_network: boolean
  no_sandbox: boolean
  no_sandbox_confirmed: boolean
}

export type FormField = keyof NewJob

/** The fields in the order the dialog lays them out (the first error gets the focus). */
export const formFieldOrder: readonly FormField[] = [
  'task',
  'profile',
  'provider',
  'base_url',
  'no_key',
  'model',
  'light_model',
  'max_depth',
  'max_concurrent_children',
  'max_spawns_per_turn',
  'max_spawns_per_minute',
  'max_agents',
  'restart_crashed',
  'rate_limit_wait_minutes',
  'job_token_budget',
  'job_cost_budget',
  'on_budget',
  'agent_timeout_s',
  'allow_network',
  'no_sandbox',
  'no_sandbox_confirmed',
  'subagent_approvals',
  'spawn_paused',
]

const isFormField = (name: string): name is FormField => (formFieldOrder as readonly string[]).includes(name)

const text = (value: number | string | null): string => (value === null ? '' : String(value))

export function formFromJob(job: NewJob): NewJobForm {
  return {
    task: job.task,
    profile: job.profile,
    provider: job.provider,
    base_url: text(job.base_url),
    no_key: job.no_key,
    model: job.model,
    light_model: text(job.light_model),
    max_depth: text(job.max_depth),
    max_concurrent_children: text(job.max_concurrent_children),
    job_token_budget: text(job.job_token_budget),
    job_cost_budget: text(job.job_cost_budget),
    agent_timeout_s: text(job.agent_timeout_s),
    max_spawns_per_turn: text(job.max_spawns_per_turn),
    max_spawns_per_minute: text(job.max_spawns_per_minute),
    restart_crashed: text(job.restart_crashed),
    max_agents: text(job.max_agents),
    on_budget: job.on_budget,
    rate_limit_wait_minutes: text(job.rate_limit_wait_minutes),
    subagent_approvals: approvalModeOf(job),
    spawn_paused: job.spawn_paused,
    allow_network: job.allow_network,
    no_sandbox: job.no_sandbox,
    no_sandbox_confirmed: job.no_sandbox_confirmed,
  }
}

/** One field changed. Switching "no sandbox" either way clears its confirmation: it is given for what is on screen. */
export function withField<K extends keyof NewJobForm>(form: NewJobForm, field: K, value: NewJobForm[K]): NewJobForm {
  const next = { ...form, [field]: value }
  return field === 'no_sandbox' ? { ...next, no_sandbox_confirmed: false } : next
}

/** Start stays off while "no sandbox" is on and not confirmed. */
export const awaitsSandboxConfirmation = (form: NewJobForm): boolean => form.no_sandbox && !form.no_sandbox_confirmed

/**
 * A number typed into a text input. Empty: `empty` (null for the nullable fields, undefined for
 * the required ones, which the schema then refuses). Whole numbers may be grouped ("1,000,000",
 * "1_000_000"); anything else that is not a number becomes NaN, which the schema refuses with its
 * own message.
 */
export function numberFromText(value: string, options: { whole: boolean; empty: null | undefined }): number | null | undefined {
  const trimmed = value.trim()
  if (trimmed === '') return options.empty
  const cleaned = options.whole ? trimmed.replace(/[\s,_]/g, '') : trimmed.replace(/^\$\s*/, '')
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(cleaned)) return Number.NaN
  return Number(cleaned)
}

/** What the form holds, in the shape newJobSchema parses. */
export function inputFromForm(form: NewJobForm): Record<keyof NewJob, unknown> {
  return {
    task: form.task,
    profile: form.profile,
    provider: form.provider,
    base_url: form.base_url.trim() === '' ? null : form.base_url,
    no_key: form.no_key,
    model: form.model,
    light_model: form.light_model.trim() === '' ? null : form.light_model,
    max_depth: numberFromText(form.max_depth, { whole: true, empty: undefined }),
    max_concurrent_children: numberFromText(form.max_concurrent_children, { whole: true, empty: undefined }),
    job_token_budget: numberFromText(form.job_token_budget, { whole: true, empty: null }),
    job_cost_budget: numberFromText(form.job_cost_budget, { whole: false, empty: null }),
    agent_timeout_s: numberFromText(form.agent_timeout_s, { whole: true, empty: null }),
    // Empty is null, not undefined, so the schema refuses it rather than filling in its default unseen.
    max_spawns_per_turn: numberFromText(form.max_spawns_per_turn, { whole: true, empty: null }),
    max_spawns_per_minute: numberFromText(form.max_spawns_per_minute, { whole: true, empty: null }),
    restart_crashed: numberFromText(form.restart_crashed, { whole: true, empty: null }),
    max_agents: numberFromText(form.max_agents, { whole: true, empty: null }),
    on_budget: form.on_budget,
    rate_limit_wait_minutes: numberFromText(form.rate_limit_wait_minutes, { whole: false, empty: null }),
    auto_approve: form.subagent_approvals === 'approve',
    subagent_approvals: form.subagent_approvals,
    spawn_paused: form.spawn_paused,
    allow_network: form.allow_network,
    no_sandbox: form.no_sandbox,
    no_sandbox_confirmed: form.no_sandbox_confirmed,
  }
}

export interface ValidationContext {
  prices: PriceTable
  /** Profile names of the project; null when they could not be read (the server still checks). */
  profiles: readonly string[] | null
}

/**
 * The schema's errors and checkNewJob's (profile exists, cost budget has prices), one per field.
 * checkNewJob runs even when another field is refused, on what of the form is usable, so every
 * error shows at once.
 */
export function validateNewJob(form: NewJobForm, context: ValidationContext): { job: NewJob | null; errors: FieldErrors } {
  const parsed = newJobSchema.safeParse(inputFromForm(form))
  const candidate: NewJob = parsed.success ? parsed.data : fallbackJob(form)
  const checked = checkNewJob(candidate, { prices: context.prices, profiles: context.profiles ?? [candidate.profile] })
  const errors: FieldErrors = parsed.success ? {} : fieldErrors(parsed.error)
  for (const [field, message] of Object.entries(checked) as Array<[keyof FieldErrors, string]>) errors[field] ??= message
  return { job: parsed.success && Object.keys(errors).length === 0 ? parsed.data : null, errors }
}

function fallbackJob(form: NewJobForm): NewJob {
  const cost = numberFromText(form.job_cost_budget, { whole: false, empty: null })
  return {
    task: form.task.trim(),
    profile: form.profile.trim(),
    provider: form.provider,
    base_url: form.base_url.trim() || null,
    no_key: form.no_key,
    model: form.model.trim(),
    light_model: form.light_model.trim() || null,
    max_depth: 0,
    max_concurrent_children: 1,
    job_token_budget: null,
    job_cost_budget: typeof cost === 'number' && Number.isFinite(cost) && cost > 0 ? cost : null,
    agent_timeout_s: null,
    ...spawnGuardDefaults,
    restart_crashed: defaultRestartCrashed,
    max_agents: defaultMaxAgents,
    on_budget: form.on_budget,
    rate_limit_wait_minutes: defaultRateLimitWaitMinutes,
    auto_approve: form.subagent_approvals === 'approve',
    subagent_approvals: form.subagent_approvals,
    spawn_paused: form.spawn_paused,
    allow_network: form.allow_network,
    no_sandbox: form.no_sandbox,
    no_sandbox_confirmed: form.no_sandbox_confirmed,
  }
}

export const hasErrors = (errors: FieldErrors): boolean => Object.keys(errors).length > 0

/** The first field with an error, in layout order. */
export const firstErrorField = (errors: FieldErrors): FormField | null => formFieldOrder.find((field) => errors[field]) ?? null

/** The models a job would spend on that have no price (scripted jobs cost nothing). */
export function unpricedModels(form: Pick<NewJobForm, 'provider' | 'model' | 'light_model'>, prices: PriceTable): string[] {
  if (form.provider === 'scripted') return []
  const models = [form.model.trim(), form.light_model.trim()].filter((model) => model !== '')
  return [...new Set(models)].filter((model) => priceFor(model, prices) === null)
}

/**
 * Switching provider: its default models from settings (scripted: the built-in plan), and a base
 * URL only for an OpenAI-compatible server (the one from settings, if any), so a local URL never
 * carries over to OpenAI or Anthropic.
 */
export function withProvider(form: NewJobForm, provider: ProviderId, settings: SettingsView | null): NewJobForm {
  if (provider === form.provider) return form
  const info = settings?.providers.find((candidate) => candidate.id === provider)
  const defaults = info ? { model: info.model, light_model: info.light_model } : defaultModels[provider]
  return {
    ...form,
    provider,
    model: defaults.model,
    light_model: defaults.light_model ?? '',
    base_url: provider === 'openai_compatible' ? (info?.base_url ?? '') : '',
  }
}

/** Server errors that a change to one field makes stale (they may no longer hold). */
const staleAfter: Partial<Record<FormField, readonly FormField[]>> = {
  provider: ['provider', 'base_url', 'no_key', 'model', 'light_model', 'job_cost_budget'],
  base_url: ['base_url', 'no_key', 'provider'],
  // Sending no key is the other way out of "the key goes only to its saved URL", and of a missing key.
  no_key: ['no_key', 'base_url', 'provider'],
  model: ['model', 'job_cost_budget'],
  light_model: ['light_model', 'job_cost_budget'],
  no_sandbox: ['no_sandbox', 'no_sandbox_confirmed'],
}

export function dropStaleErrors(errors: FieldErrors, changed: FormField): FieldErrors {
  const stale = staleAfter[changed] ?? [changed]
  if (!stale.some((field) => errors[field])) return errors
  const next = { ...errors }
  for (const field of stale) delete next[field]
  return next
}

/**
 * A refused startJob: the server's field messages beside the fields, and a form-level message.
 * When every field message has a place, the form-level line only points at them (the server's
 * text repeats them); a field the form does not have, or an error without fields, is shown as
 * the server's text.
 */
export function serverErrors(error: unknown): { fields: FieldErrors; message: string | null; note: string | null } {
  const raw = errorFields(error)
  if (!raw || Object.keys(raw).length === 0) return { fields: {}, message: errorText(error), note: errorText(error) }
  const fields: FieldErrors = {}
  const elsewhere: string[] = []
  for (const [field, message] of Object.entries(raw)) {
    if (isFormField(field)) fields[field] = message
    else elsewhere.push(field === 'form' ? message : `${field}: ${message}`)
  }
  const note = elsewhere.length > 0 ? elsewhere.join(' ') : null
  return { fields, message: footerMessage(fields, note), note }
}

/**
 * The footer's line for the server's refusal as it stands now: a pointer at the field messages
 * still shown (none once each is fixed), then what has no field of its own.
 */
export function footerMessage(fields: FieldErrors, note: string | null): string | null {
  const count = Object.values(fields).filter(Boolean).length
  const pointer = count > 0 ? `The job was not started: ${count === 1 ? 'one field needs' : `${count} fields need`} attention.` : null
  return [pointer, note].filter(Boolean).join(' ') || null
}

/** Profiles grouped for the select: built-ins first, then the project's own. */
export function groupProfiles(profiles: readonly ProfileInfo[]): { builtin: ProfileInfo[]; project: ProfileInfo[] } {
  return {
    builtin: profiles.filter((profile) => profile.source === 'builtin'),
    project: profiles.filter((profile) => profile.source !== 'builtin'),
  }
}

/** "$2.00 in · $8.00 out per 1M tokens". */
export function describePrice(price: ModelPrice): string {
  return `${formatUsd(price.input)} in · ${formatUsd(price.output)} out per 1M tokens`
}

/** Cents when the price has no finer part ("$0.60"), else as precise as it is ("$0.075"). */
export function formatUsd(value: number): string {
  const rounded = Math.round(value * 1e6) / 1e6
  return Math.abs(rounded * 100 - Math.round(rounded * 100)) < 1e-9 ? `$${rounded.toFixed(2)}` : `$${rounded}`
}
