import { createInterface } from 'node:readline/promises'
import type { LoadedProfiles } from '../core/job/profiles/load'
import {
  checkNewJob,
  defaultNewJob,
  fieldErrors,
  newJobSchema,
  providerIds,
  type FieldErrors,
  type NewJob,
  type ProviderId,
} from '../core/api/job-form'
import type { PriceTable } from '../core/providers/pricing'
import type { CliValues } from './cli-values'
import { JobRefused, UsageError } from './usage-error'

/**
 * `arbor run`'s job options, checked as the API checks a new job: by the new-job form's schema
 * and `checkNewJob`, so a job the CLI starts obeys the same limits as one the UI starts.
 */

/** The flag that sets each field, to name it in an error. */
const flagOf: Partial<Record<keyof FieldErrors, string>> = {
  task: '--task',
  provider: '--provider',
  base_url: '--base-url',
  no_key: '--no-key',
  model: '--model',
  light_model: '--light-model',
  max_depth: '--max-depth',
  max_concurrent_children: '--max-children',
  max_spawns_per_turn: '--max-spawns-per-turn',
  max_spawns_per_minute: '--max-spawns-per-minute',
  job_token_budget: '--job-token-budget',
  job_cost_budget: '--job-cost-budget',
  agent_timeout_s: '--agent-timeout',
  restart_crashed: '--restart-crashed',
  max_agents: '--max-agents',
  on_budget: '--on-budget',
  rate_limit_wait_minutes: '--rate-limit-wait',
  no_sandbox_confirmed: '--no-sandbox',
  subagent_approvals: '--subagent-approvals',
}

/** The CLI's default model per provider (the light model defaults to the main one). */
const cliModels: Record<ProviderId, string> = {
  scripted: 'scripted',
  openai: 'gpt-4o',
  anthropic: 'claude-sonnet-4-6',
  openai_compatible: 'llama3.1',
}

export const isProvider = (value: string): value is ProviderId => (providerIds as readonly string[]).includes(value)

/** A number flag as typed; anything that is not plainly a number is NaN, which the schema refuses with its message. */
function numberFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim()) ? Number(value) : Number.NaN
}

/** The new-job form's input, from the command line; what a flag leaves out is the form's default. */
export function jobInputFromFlags(
  values: CliValues,
  request: { task: string; provider: ProviderId; interactive?: boolean },
): Record<keyof NewJob, unknown> {
  const defaults = defaultNewJob()
  const noSandbox = values['no-sandbox'] ?? false
  return {
    ...defaults,
    task: request.task,
    provider: request.provider,
    base_url: values['base-url'] ?? null,
    no_key: values['no-key'] ?? false,
    model: values.model ?? cliModels[request.provider],
    light_model: values['light-model'] ?? null,
    max_depth: numberFlag(values['max-depth']) ?? defaults.max_depth,
    max_concurrent_children: numberFlag(values['max-children']) ?? defaults.max_concurrent_children,
    max_spawns_per_turn: numberFlag(values['max-spawns-per-turn']) ?? defaults.max_spawns_per_turn,
    max_spawns_per_minute: numberFlag(values['max-spawns-per-minute']) ?? defaults.max_spawns_per_minute,
    job_token_budget: numberFlag(values['job-token-budget']) ?? null,
    job_cost_budget: numberFlag(values['job-cost-budget']) ?? null,
    agent_timeout_s: numberFlag(values['agent-timeout']) ?? null,
    restart_crashed: numberFlag(values['restart-crashed']) ?? defaults.restart_crashed,
    max_agents: numberFlag(values['max-agents']) ?? defaults.max_agents,
    // Without a terminal nobody can raise a cap: the job stops at it, as before (run.ts says so).
    on_budget: values['on-budget'] ?? (request.interactive ? 'pause' : 'stop'),
    rate_limit_wait_minutes: numberFlag(values['rate-limit-wait']) ?? defaults.rate_limit_wait_minutes,
    auto_approve: values['auto-approve-subagents'] ?? false,
    // --auto-approve-subagents is the older spelling of --subagent-approvals approve.
    subagent_approvals: values['subagent-approvals'] ?? (values['auto-approve-subagents'] ? 'approve' : undefined),
    allow_network: values['allow-network'] ?? false,
    no_sandbox: noSandbox,
    // The CLI asks its own question once the options are good (confirmNoSandbox).
    no_sandbox_confirmed: noSandbox,
  }
}

/**
 * The job, or a UsageError naming each bad flag, or JobRefused when the engine's checks fail (a
 * cost budget on a model without a price, an unknown profile).
 */
export function checkJobFlags(
  input: Record<keyof NewJob, unknown>,
  context: { prices: PriceTable; loadedProfiles: LoadedProfiles; dbFile: string },
): NewJob {
  const parsed = newJobSchema.safeParse(input)
  if (!parsed.success) throw new UsageError(describeErrors(fieldErrors(parsed.error)))
  const profiles = Object.values(context.loadedProfiles.profiles)
  const errors = checkNewJob(parsed.data, {
    prices: context.prices,
    profiles: profiles.map((profile) => profile.name),
    profileModels: profiles.map((profile) => profile.model).filter((model) => model !== 'main' && model !== 'light'),
  })
  if (Object.keys(errors).length === 0) return parsed.data
  const hint = errors.job_cost_budget
    ? `\n  Prices are kept in ${context.dbFile}: run \`arbor serve --db ${context.dbFile}\` and add one in Settings ▸ Prices, ` +
      'or set a --job-token-budget instead.'
    : ''
  throw new JobRefused(describeErrors(errors) + hint)
}

/** One line per field, named by its flag: `--max-depth: at most 8`. */
const describeErrors = (errors: FieldErrors): string =>
  Object.entries(errors)
    .map(([field, message]) => `${flagOf[field as keyof FieldErrors] ?? field}: ${message}`)
    .join('\n  ')

/**
 * `--no-sandbox`: a warning on stderr, then a yes/no question on a terminal. Without one it needs
 * `--yes`; otherwise the job is refused (exit 2).
 */
export async function confirmNoSandbox(values: CliValues, interactive: boolean): Promise<void> {
  console.error(
    'arbor: WARNING: --no-sandbox: commands run without the OS sandbox; they can read, change and delete anything you can, and reach the network.',
  )
  if (values.yes) return
  if (!interactive) throw new JobRefused('--no-sandbox needs --yes when there is no terminal to ask on; the job was not started')
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  // Ctrl-C or the end of input at the question is a no.
  const answer = await new Promise<string>((resolve) => {
    prompt.once('SIGINT', () => resolve(''))
    prompt.once('close', () => resolve(''))
    prompt.question('Run this job without the sandbox? [y/N] ').then(resolve, () => resolve(''))
  })
  prompt.close()
  if (!/^y(es)?$/i.test(answer.trim())) throw new JobRefused('running without the sandbox was not confirmed; the job was not started')
}
