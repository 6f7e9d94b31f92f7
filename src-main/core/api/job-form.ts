import { z } from 'zod'
import { priceFor, type PriceTable } from '../providers/pricing'

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
const positiveInt = (max: number) => wholeNumber().refine((value) => value > 0, 'must be more than 0').refine((value) => value <= max, `at most ${max.toLocaleString('en')}`)

export const newJobSchema = z
  .object({
    task: z.string().trim().min(1, 'describe the task').max(20_000, 'at most 20,000 characters'),
    profile: z.string().trim().min(1, 'choose a profile').max(100),
    provider: z.enum(providerIds, { error: 'choose a provider' }),
    /** Required for openai_compatible; for openai and anthropic it overrides the settings' base URL. */
    base_url: httpUrl.nullable(),
    model: modelId,
    light_model: optionalModelId,
    max_depth: wholeNumber().refine((value) => value >= 0, 'at least 0').refine((value) => value <= 8, 'at most 8'),
    max_concurrent_children: positiveInt(64),
    job_token_budget: positiveInt(1_000_000_000).nullable(),
    job_cost_budget: z.number({ error: 'must be a number' }).positive('must be more than 0').max(100_000, 'at most 100,000').nullable(),
    /** Wall-clock limit per agent; null: none. */
    agent_timeout_s: positiveInt(86_400).nullable(),
    auto_approve: z.boolean(),
    spawn_paused: z.boolean(),
  })
  .strict()
  .superRefine((value, context) => {
    if (value.provider === 'openai_compatible' && !value.base_url) {
      context.addIssue({ code: 'custom', path: ['base_url'], message: 'an OpenAI-compatible server needs its base URL' })
    }
  })
export type NewJobInput = z.input<typeof newJobSchema>
export type NewJob = z.output<typeof newJobSchema>

/** What the form starts with for a project that has never run a job. */
export const defaultNewJob = (): NewJob => ({
  task: '',
  profile: 'general',
  provider: 'scripted',
  base_url: null,
  model: defaultModels.scripted.model,
  light_model: null,
  max_depth: 1,
  max_concurrent_children: 3,
  job_token_budget: null,
  job_cost_budget: null,
  agent_timeout_s: null,
  auto_approve: false,
  spawn_paused: false,
})

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
  context: { prices: PriceTable; profiles: readonly string[]; /** Model ids that profiles name outright (not main/light). */ profileModels?: readonly string[] },
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
