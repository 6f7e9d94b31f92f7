import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import type { LoadedProfiles } from '../../core/job/profiles/load'
import type { PriceRow } from '../../core/api/contract'
import { approvalModeOf, jobSettingsOf, providerIds, type NewJob, type ProviderId } from '../../core/api/job-form'
import { demoJob, scriptedJob } from '../../core/demo/demo-job'
import type { Engine } from '../../core/engine'
import type { PriceTable } from '../../core/providers/pricing'
import type { AgentNode, Job, ScriptPlan } from '../../core/trace/model'
import { answerApprovals } from '../approvals'
import { askForBudgets, stopAtBudgets } from '../budget-prompt'
import { checkJobFlags, confirmNoSandbox, isProvider, jobInputFromFlags } from '../job-options'
import type { CliValues } from '../cli-values'
import { formatCost, printTree } from '../tree-printer'
import { intOption, JobRefused, numberOption, UsageError } from '../usage-error'
import { openDatabase } from '../../core/store/database'
import { JobReferenceError, resolveJobReference } from '../../core/store/job-reference'
import { cliEngine, closeOnSignal } from './engine'

export async function runDemo(dir: string, values: CliValues): Promise<number> {
  const projectDir = requireDir(dir)
  const planned = await demoJob(projectDir)
  return runPlanned(projectDir, values, { provider: 'scripted', task: planned.task, script: () => Promise.resolve(planned.script) })
}

export async function runJob(dir: string, values: CliValues): Promise<number> {
  const projectDir = requireDir(dir)
  if (values.continue !== undefined) return continueJob(projectDir, values)
  if (!values.task) throw new UsageError('run needs --task TEXT')
  const provider = values.provider ?? 'scripted'
  if (!isProvider(provider)) throw new UsageError(`unknown provider "${provider}" (${providerIds.join(', ')})`)
  const script = provider === 'scripted' ? async (task: string) => (await scriptedJob(projectDir, task)).script : undefined
  return runPlanned(projectDir, values, { provider, task: values.task, script })
}

/**
 * The engine of a headless job (`run`, `run --continue`, `resume`). It has no control to allow a
 * spawn past max_agents or max_spawns_per_turn, so such spawns are refused; `--max-model-calls`
 * caps its concurrent model calls over the Settings value.
 */
export function headlessEngine(values: CliValues, projectDir: string | undefined): ReturnType<typeof cliEngine> {
  const warmPool = intOption(values['warm-pool'], 'warm-pool')
  return cliEngine(values.db, projectDir, warmPool, false, false, intOption(values['max-model-calls'], 'max-model-calls', 1))
}

/** What to run: the task as given (checked with the other options), and for a scripted job its plan. */
interface PlannedJob {
  provider: ProviderId
  task: string
  script?: (task: string) => Promise<ScriptPlan>
}

async function runPlanned(projectDir: string, values: CliValues, planned: PlannedJob): Promise<number> {
  const { engine, dbFile } = headlessEngine(values, projectDir)
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  const running: { jobId?: string } = {}
  // On a terminal the first Ctrl-C wraps the whole job up (the root, so every agent), the second kills it.
  closeOnSignal(engine, interactive ? () => running.jobId !== undefined && wrapUpJob(engine, running.jobId) : undefined)
  const loadedProfiles = engine.profilesFor(projectDir)
  let newJob: NewJob
  try {
    newJob = await checkedJob(engine, values, { ...planned, interactive }, { loadedProfiles, dbFile })
  } catch (error) {
    await engine.close()
    throw error
  }
  if (newJob.on_budget === 'pause' && !interactive) {
    // Nobody to ask for a new cap: said once, and the job stops at its cap as it always did.
    console.error('arbor: --on-budget pause needs a terminal to ask for a new budget on; without one, the job stops at its budget')
    newJob = { ...newJob, on_budget: 'stop' }
  }
  const settings = jobSettingsOf(newJob, await planned.script?.(newJob.task))
  // With --json, stdout carries the one outcome object; the live tree and notices go to stderr.
  const json = values.json ?? false
  const say = json ? (line: string) => console.error(line) : (line: string) => console.log(line)
  engine.subscribe(printTree(say))
  let subagentApprovals = approvalModeOf(newJob)
  if (subagentApprovals === 'ask' && !interactive) {
    // Nobody to ask: said once, here, rather than on every denied command.
    console.error('arbor: --subagent-approvals ask needs a terminal to ask on; without one, subagents’ risky commands are denied')
    subagentApprovals = 'deny'
  }
  engine.subscribe(answerApprovals(engine.supervisor, interactive))
  if (newJob.on_budget === 'pause') engine.subscribe(askForBudgets(engine.supervisor, () => running.jobId))
  // Load errors are trace events (printed with the tree); warnings only go to the terminal.
  for (const warning of loadedProfiles.warnings) console.error(`arbor: profile ${warning.file}: ${warning.message}`)
  const started = Date.now()
  const jobId = engine.supervisor.startJob({
    project: projectDir,
    task: newJob.task,
    settings,
    loadedProfiles,
    subagentApprovals,
  })
  running.jobId = jobId
  return reportRun(engine, jobId, { values, dbFile, started, say })
}

/** The flags of a new job that a follow-up cannot take: it goes on with the job's own settings. */
const newJobOnlyFlags = [
  'provider',
  'model',
  'light-model',
  'base-url',
  'no-key',
  'max-depth',
  'max-children',
  'max-spawns-per-turn',
  'max-spawns-per-minute',
  'agent-timeout',
  'restart-crashed',
  'max-agents',
  'rate-limit-wait',
  'allow-network',
  'no-sandbox',
  'auto-approve-subagents',
  'subagent-approvals',
  'on-budget',
] as const

/**
 * `run --continue JOB|last --task TEXT`: the job's root goes on from its whole history with TEXT,
 * in the same job and tree (`followUp`); the job's budgets may be raised with the usual flags.
 * `last` is this project's newest job.
 */
async function continueJob(projectDir: string, values: CliValues): Promise<number> {
  if (!values.task) throw new UsageError('run --continue needs --task TEXT: the follow-up')
  const given = newJobOnlyFlags.filter((flag) => values[flag] !== undefined)
  if (given.length > 0) {
    throw new UsageError(`--continue goes on with the job's own settings: leave out ${given.map((flag) => `--${flag}`).join(', ')}`)
  }
  const budgets = {
    ...(values['job-token-budget'] !== undefined ? { job_token_budget: intOption(values['job-token-budget'], 'job-token-budget', 1) } : {}),
    ...(values['job-cost-budget'] !== undefined ? { job_cost_budget: numberOption(values['job-cost-budget'], 'job-cost-budget') } : {}),
  }
  const { engine, dbFile } = headlessEngine(values, projectDir)
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  const running: { jobId?: string } = {}
  // As for a new job: on a terminal the first Ctrl-C wraps the follow-up up, the second kills it.
  closeOnSignal(engine, interactive ? () => running.jobId !== undefined && wrapUpJob(engine, running.jobId) : undefined)
  const json = values.json ?? false
  const say = json ? (line: string) => console.error(line) : (line: string) => console.log(line)
  const started = Date.now()
  let jobId: string
  try {
    jobId = await continuedJobId(engine, dbFile, values.continue!)
    engine.subscribe(printTree(say))
    engine.subscribe(answerApprovals(engine.supervisor, interactive))
    // A job that pauses at its budget asks for a new one on a terminal; without one it would wait for nobody.
    engine.subscribe(
      interactive ? askForBudgets(engine.supervisor, () => running.jobId) : stopAtBudgets(engine.supervisor, () => running.jobId),
    )
    await engine.handlers.followUp({ job_id: jobId, text: values.task, ...budgets })
    running.jobId = jobId
  } catch (error) {
    await engine.close()
    if (error instanceof UsageError) throw error
    throw new JobRefused(`the job cannot be continued: ${error instanceof Error ? error.message : String(error)}`)
  }
  say(`continuing job ${jobId}`)
  return reportRun(engine, jobId, { values, dbFile, started, say })
}

async function continuedJobId(engine: Engine, dbFile: string, reference: string): Promise<string> {
  if (reference === 'last') {
    const newest = (await engine.handlers.listJobs({})).jobs.find((job) => !job.imported)
    if (!newest) throw new UsageError('--continue last: this project has no job to continue')
    return newest.id
  }
  const db = openDatabase(dbFile)
  try {
    return resolveJobReference(db, reference)
  } catch (error) {
    if (JobReferenceError.isInstance(error)) throw new UsageError(`--continue: ${error.message}`)
    throw error
  } finally {
    db.close()
  }
}

/**
 * Waits for the job to end, prints its answer and totals (or `--json`'s object), exports it with
 * --export. A follow-up's or a resume's run (`sinceStarted`) is timed from when it was sent.
 */
export async function reportRun(
  engine: Engine,
  jobId: string,
  {
    values,
    dbFile,
    started,
    say,
    sinceStarted = values.continue !== undefined,
  }: { values: CliValues; dbFile: string; started: number; say: (line: string) => void; sinceStarted?: boolean },
): Promise<number> {
  const json = values.json ?? false
  await engine.waitForJob(jobId)
  const { job, agents } = await engine.handlers.getTree({ job_id: jobId })
  const root = agents.find((agent) => agent.parent_id === null)
  const result = root ? await rootResult(engine, root.id) : null
  // A follow-up's run is timed from when it was sent, not from the job's start.
  const durationMs = job.ended_at && !sinceStarted ? Date.parse(job.ended_at) - Date.parse(job.created_at) : Date.now() - started
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome(job, agents, result, durationMs, dbFile))}\n`)
  } else {
    if (result !== null) console.log(`result:\n${typeof result === 'string' ? result : JSON.stringify(result, null, 2)}`)
    const cost = job.cost_usd === null ? '' : `, ${formatCost(job.cost_usd)}`
    const seconds = (durationMs / 1000).toFixed(1)
    console.log(
      `${agents.length} agents, ${job.usage.input_tokens + job.usage.output_tokens} tokens${cost}, ${seconds} s; trace in ${dbFile}`,
    )
  }
  if (values.export) {
    const file = path.resolve(values.export)
    const lines = await engine.exportJsonl(jobId, file)
    say(`exported ${lines} lines to ${file}`)
  }
  await engine.close()
  return job.status === 'completed' ? 0 : 1
}

/** Asks the job's root, and so every agent, to wrap up; false when nothing is left to wrap up. */
export function wrapUpJob(engine: Engine, jobId: string): boolean {
  const root = engine.supervisor.rootAgentId(jobId)
  if (!root || !engine.supervisor.isActive(jobId)) return false
  try {
    engine.supervisor.wrapUp(root)
    return true
  } catch {
    return false
  }
}

/** The options checked as the API checks a new job; `--no-sandbox` confirmed on the terminal or by `--yes`. */
async function checkedJob(
  engine: Engine,
  values: CliValues,
  planned: PlannedJob & { interactive: boolean },
  context: { loadedProfiles: LoadedProfiles; dbFile: string },
): Promise<NewJob> {
  const prices = priceTable((await engine.handlers.getSettings({})).prices)
  const job = checkJobFlags(jobInputFromFlags(values, planned), { prices, ...context })
  if (job.no_sandbox) await confirmNoSandbox(values, Boolean(process.stdin.isTTY && process.stderr.isTTY))
  return job
}

const priceTable = (rows: readonly PriceRow[]): PriceTable =>
  Object.fromEntries(rows.map(({ model, input, output, cache_read, cache_write }) => [model, { input, output, cache_read, cache_write }]))

/** The root agent's final answer: its last `agent.end` event's `result` (a follow-up ends it again); null when it gave none. */
async function rootResult(engine: Engine, rootId: string): Promise<unknown> {
  let afterSeq = 0
  let result: unknown = null
  for (;;) {
    const { events } = await engine.handlers.getEvents({ agent_id: rootId, after_seq: afterSeq, limit: 5000 })
    for (const event of events) if (event.type === 'agent.end') result = event.data.result ?? null
    const last = events.at(-1)
    if (!last) return result
    afterSeq = last.seq
  }
}

/** `--json`: the job's outcome as one object (the shape is documented in README.md). */
function outcome(job: Job, agents: AgentNode[], result: unknown, durationMs: number, dbFile: string) {
  return {
    job_id: job.id,
    status: job.status,
    result,
    usage: job.usage,
    cost_usd: job.cost_usd,
    duration_ms: durationMs,
    trace_db: dbFile,
    agents: agents.map((agent) => ({
      id: agent.id,
      parent_id: agent.parent_id,
      depth: agent.depth,
      label: agent.label,
      profile: agent.profile,
      model: agent.model,
      status: agent.status,
      terminal_reason: agent.terminal_reason,
      steps: agent.steps,
      usage: agent.usage,
      cost_usd: agent.cost_usd,
    })),
  }
}

function requireDir(dir: string): string {
  const resolved = path.resolve(dir)
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) throw new UsageError(`not a folder: ${resolved}`)
  return resolved
}
