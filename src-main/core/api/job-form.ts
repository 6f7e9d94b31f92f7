import { z } from 'zod'
import { priceFor, type PriceTable } from '../providers/pricing'
import { groupDigits } from '../digits'
import {
  defaultMaxAgents,
  defaultOnBudget,
  defaultRateLimitWaitMinutes,
  defaultRestartCrashed,
  defaultSettings,
  spawnGuardDefaults,
  type JobSettings,
} from '../trace/model'
import { newJobLimits } from './job-limits'
import { subagentApprovalsSchema, type SubagentApprovals } from '../trace/statuses'

export { newJobLimits }

/**
 * The new-job form's fields, checked by one schema in the renderer (errors beside each field)
 * and again by the engine (`startJob`). Pure: no Node, so the renderer bundles it.
 */

/** Who answers: the three real kinds plus `scripted`, the built-in plan that needs no key. */
export const providerIds = ['openai', 'anthropic', 'openai_compatible', 'scripted'] as const
export type ProviderId = (typeof providerIds)[number]
/** The providers that take a key and a base URL. */
export const keyedProviderIds = ['openai', 'anthropic', 'openai_compatible'] as const
export type KeyedProviderId = (typeof keyedProviderIds)[number]

export const providerLabels: Record<ProviderId, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  openai_compatible: 'OpenAI-compatible',
  scripted: 'Scripted (demo, no key)',
}

/** Local OpenAI-compatible servers, by their usual default ports. */
export const baseUrlPresets = [
  { name: 'Ollama', url: 'http://localhost:11434/v1' },
  { name: 'LM Studio', url: 'http://localhost:1234/v1' },
  { name: 'vLLM', url: 'http://localhost:8000/v1' },
] as const

export const defaultModels: Record<ProviderId, { model: string; light_model: string | null }> = {
  openai: { model: 'gpt-4.1', light_model: 'gpt-4.1-mini' },
  anthropic: { model: 'claude-sonnet-4-6', light_model: 'claude-haiku-4-5' },
  openai_compatible: { model: 'llama3.1', light_model: null },
  scripted: { model: 'scripted', light_model: null },
}

const modelId = z.string().trim().min(1, 'enter a model').max(200, 'at most 200 characters')
const optionalModelId = z
  .string()
  .trim()
  .max(200, 'at most 200 characters')
  .nullable()
  .transform((value) => (value ? value : null))
const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http:// or https:// URL')

// `.refine(Number.isInteger)` rather than `.int()`: zod's int check ends the parse, which would hide
// the other fields' errors (the form shows them all at once).
const wholeNumber = () => z.number({ error: 'must be a whole number' }).refine(Number.isInteger, 'must be a whole number')
const positiveInt = (max: number) =>
  wholeNumber()
    .refine((value) => value > 0, 'must be more than 0')
    .refine((value) => value <= max, `at most ${groupDigits(max)}`)
/** A count where 0 turns the limit off. */
const countOrOff = (max: number) =>
  wholeNumber()
    .refine((value) => value >= 0, 'at least 0 (0: no limit)')
    .refine((value) => value <= max, `at most ${groupDigits(max)}`)

export const noSandboxConfirmation = 'I understand commands can read and write anything I can'

export const newJobSchema = z
  .object({
    task: z.string().trim().min(1, 'describe the task').max(20_000, 'at most 20,000 characters'),
    profile: z.string().trim().min(1, 'choose a profile').max(100),
    provider: z.enum(providerIds, { error: 'choose a provider' }),
    /** Required for openai_compatible; for openai and anthropic it overrides the settings' base URL. */
    base_url: httpUrl.nullable(),
    /** Send no API key: the job's own base URL is a server that needs none. A stored key never goes to a URL but its saved one. */
    no_key: z.boolean().default(false),
    model: modelId,
    light_model: optionalModelId,
    max_depth: wholeNumber()
      .refine((value) => value >= 0, 'at least 0')
      .refine((value) => value <= newJobLimits.max_depth, `at most ${newJobLimits.max_depth}`),
    max_concurrent_children: positiveInt(newJobLimits.max_concurrent_children),
    job_token_budget: positiveInt(newJobLimits.job_token_budget).nullable(),
    job_cost_budget: z
      .number({ error: 'must be a number' })
      .positive('must be more than 0')
      .max(newJobLimits.job_cost_budget, `at most ${groupDigits(newJobLimits.job_cost_budget)}`)
      .nullable(),
    /** Wall-clock limit per agent; null: none. */
    agent_timeout_s: positiveInt(newJobLimits.agent_timeout_s).nullable(),
    /** The runaway guards: spawns per parent turn and per minute in the job; 0 turns one off. */
    max_spawns_per_turn: countOrOff(newJobLimits.max_spawns_per_turn).default(spawnGuardDefaults.max_spawns_per_turn),
    max_spawns_per_minute: countOrOff(newJobLimits.max_spawns_per_minute).default(spawnGuardDefaults.max_spawns_per_minute),
    /** Restarts of an agent whose process crashed, from its history; 0: a crash ends it, as before. */
    restart_crashed: countOrOff(newJobLimits.restart_crashed).default(defaultRestartCrashed),
    /** Subagents the job may spawn, the root not counted; past it a spawn waits for the user. 0: no cap. */
    max_agents: countOrOff(newJobLimits.max_agents).default(defaultMaxAgents),
    /** A cap reached pauses every agent until it is raised (the app's default), or stops them. */
    on_budget: z.enum(['pause', 'stop']).default(defaultOnBudget),
    /** How long a rate-limited or overloaded model call waits and tries again before it fails, in minutes; 0: it fails at once, as before. */
    rate_limit_wait_minutes: z
      .number({ error: 'must be a number' })
      .min(0, 'at least 0 (0: no waiting)')
      .max(newJobLimits.rate_limit_wait_minutes, `at most ${groupDigits(newJobLimits.rate_limit_wait_minutes)}`)
      .default(defaultRateLimitWaitMinutes),
    /** The older switch: true approves subagents' risky commands; subagent_approvals, when given, says it all. */
    auto_approve: z.boolean(),
    /** Subagents' risky commands: denied, asked of the user (as the root's are), or approved. */
    subagent_approvals: subagentApprovalsSchema.optional(),
    spawn_paused: z.boolean(),
    /** Commands may reach the network. Remembered like the other settings. */
    allow_network: z.boolean().default(false),
    /** Commands run without the OS sandbox: never remembered, and only with `no_sandbox_confirmed`. */
    no_sandbox: z.boolean().default(false),
    /** The user ticked "I understand…" (the form) or answered the CLI's question for this job. */
    no_sandbox_confirmed: z.boolean().default(false),
  })
  .strict()
  .superRefine((value, context) => {
    if (value.provider === 'openai_compatible' && !value.base_url) {
      context.addIssue({ code: 'custom', path: ['base_url'], message: 'an OpenAI-compatible server needs its base URL' })
    }
    if (value.no_key && value.provider !== 'scripted' && !value.base_url) {
      context.addIssue({
        code: 'custom',
        path: ['no_key'],
        message: 'running without a key needs the base URL of a server that needs none',
      })
    }
    if (value.no_sandbox && !value.no_sandbox_confirmed) {
      context.addIssue({
        code: 'custom',
        path: ['no_sandbox_confirmed'],
        message: `running without the sandbox needs a confirmation: "${noSandboxConfirmation}"`,
      })
    }
  })
export type NewJobInput = z.input<typeof newJobSchema>
export type NewJob = z.output<typeof newJobSchema>

/** A new job's subagent approval mode: what it names, else what its auto-approve switch says. */
export const approvalModeOf = (job: Pick<NewJob, 'auto_approve' | 'subagent_approvals'>): SubagentApprovals =>
  job.subagent_approvals ?? (job.auto_approve ? 'approve' : 'deny')

/** What the form starts with for a project that has never run a job. */
export const defaultNewJob = (): NewJob => ({
  task: '',
  profile: 'general',
  provider: 'scripted',
  base_url: null,
  no_key: false,
  model: defaultModels.scripted.model,
  light_model: null,
  max_depth: 1,
  max_concurrent_children: 3,
  job_token_budget: null,
  job_cost_budget: null,
  agent_timeout_s: null,
  ...spawnGuardDefaults,
  restart_crashed: defaultRestartCrashed,
  max_agents: defaultMaxAgents,
  on_budget: defaultOnBudget,
  rate_limit_wait_minutes: defaultRateLimitWaitMinutes,
  auto_approve: false,
  subagent_approvals: 'deny',
  spawn_paused: false,
  allow_network: false,
  no_sandbox: false,
  no_sandbox_confirmed: false,
})

/**
 * What of a job is remembered as the project's next defaults: all but the task and the sandbox
 * opt-out, which must be asked for again on every job.
 */
export function rememberedSettings(job: NewJob): Omit<NewJob, 'task'> {
  const { task: _task, ...settings } = job
  return { ...settings, no_sandbox: false, no_sandbox_confirmed: false }
}

/** The job's settings as stored in the trace: what the user chose, every guard spelled out, never a key. */
export function jobSettingsOf(job: NewJob, script?: JobSettings['script']): JobSettings {
  return defaultSettings({
    provider: job.provider,
    model: job.model,
    light_model: job.light_model,
    base_url: job.base_url,
    ...(job.no_key && job.provider !== 'scripted' ? { no_key: true } : {}),
    profile: job.profile,
    max_depth: job.max_depth,
    max_concurrent_children: job.max_concurrent_children,
    job_token_budget: job.job_token_budget,
    job_cost_budget: job.job_cost_budget,
    agent_timeout_ms: job.agent_timeout_s === null ? null : job.agent_timeout_s * 1000,
    max_spawns_per_turn: job.max_spawns_per_turn,
    max_spawns_per_minute: job.max_spawns_per_minute,
    restart_crashed: job.restart_crashed,
    max_agents: job.max_agents,
    on_budget: job.on_budget,
    rate_limit_wait_minutes: job.rate_limit_wait_minutes,
    allow_network: job.allow_network,
    no_sandbox: job.no_sandbox,
    ...(script ? { script } : {}),
  })
}

export type FieldErrors = Partial<Record<keyof NewJob | 'form', string>>

/** Zod issues as one message per field (the first), keyed by the field's name. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {}
  for (const issue of error.issues) {
    const field = (typeof issue.path[0] === 'string' ? issue.path[0] : 'form') as keyof FieldErrors
    errors[field] ??= issue.message
  }
  return errors
}

/**
 * Checks that need the engine's context: the profile exists, and a cost budget has prices for
 * every model it would spend on (else it could never be enforced).
 */
export function checkNewJob(
  job: NewJob,
  context: {
    prices: PriceTable
    profiles: readonly string[]
    /** Model ids that profiles name outright (not main/light). */ profileModels?: readonly string[]
  },
): FieldErrors {
  const errors: FieldErrors = {}
  if (!context.profiles.includes(job.profile)) errors.profile = `no profile "${job.profile}" in this project`
  if (job.job_cost_budget !== null && job.provider !== 'scripted') {
    const models = [...new Set([job.model, job.light_model, ...(context.profileModels ?? [])])]
    const unpriced = models.filter((model): model is string => !!model && priceFor(model, context.prices) === null)
    if (unpriced.length > 0) {
      errors.job_cost_budget =
        `${unpriced.map((model) => `"${model}"`).join(' and ')} ${unpriced.length > 1 ? 'have' : 'has'} no price, so a cost budget ` +
        'cannot be enforced: add the price in Settings ▸ Prices, or use a token budget'
    }
  }
  return errors
}

/** Models to suggest for a provider: the price table's ids that belong to it. */
export function suggestedModels(provider: ProviderId, prices: PriceTable): string[] {
  const ids = Object.keys(prices).sort()
  if (provider === 'anthropic') return ids.filter((id) => id.startsWith('claude'))
  if (provider === 'openai') return ids.filter((id) => /^(gpt|o\d|chatgpt)/.test(id))
  if (provider === 'openai_compatible') return ids.filter((id) => !id.startsWith('claude') && !/^(gpt|o\d|chatgpt)/.test(id))
  return ['scripted']
}
