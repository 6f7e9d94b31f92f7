import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { demoJob, scriptedJob } from '../../core/demo/demo-job'
import { defaultSettings, type Engine } from '../../core/engine'
import type { AgentNode, Job, ScriptPlan } from '../../core/trace/model'
import { answerRootApprovals } from '../approvals'
import type { CliValues } from '../main'
import { formatCost, printTree } from '../tree-printer'
import { intOption, numberOption, UsageError } from '../usage-error'
import { cliEngine, closeOnSignal } from './engine'

export async function runDemo(dir: string, values: CliValues): Promise<number> {
  const projectDir = requireDir(dir)
  const planned = await demoJob(projectDir)
  return runPlanned(projectDir, planned, values)
}

export async function runJob(dir: string, values: CliValues): Promise<number> {
  const projectDir = requireDir(dir)
  if (!values.task) throw new UsageError('run needs --task TEXT')
  const provider = values.provider ?? 'scripted'
  if (provider === 'scripted') return runPlanned(projectDir, await scriptedJob(projectDir, values.task), values)
  if (provider !== 'openai' && provider !== 'anthropic') {
    throw new UsageError(`unknown provider "${provider}" (scripted, openai or anthropic)`)
  }
  return runPlanned(projectDir, { task: values.task }, values, provider)
}

const defaultModels = { scripted: 'scripted', openai: 'gpt-4o', anthropic: 'claude-sonnet-4-6' } as const

async function runPlanned(
  projectDir: string,
  planned: { task: string; script?: ScriptPlan },
  values: CliValues,
  provider: keyof typeof defaultModels = 'scripted',
): Promise<number> {
  if (values['base-url'] !== undefined && !URL.canParse(values['base-url'])) throw new UsageError(`--base-url is not a URL: ${values['base-url']}`)
  const settings = defaultSettings({
    provider,
    model: values.model ?? defaultModels[provider],
    light_model: values['light-model'] ?? null,
    base_url: values['base-url'] ?? null,
    max_depth: intOption(values['max-depth'], 'max-depth') ?? 1,
    max_concurrent_children: intOption(values['max-children'], 'max-children', 1) ?? 3,
    job_token_budget: intOption(values['job-token-budget'], 'job-token-budget', 1) ?? null,
    job_cost_budget: numberOption(values['job-cost-budget'], 'job-cost-budget') ?? null,
    script: planned.script,
  })
  const { engine, dbFile } = cliEngine(values.db, projectDir)
  closeOnSignal(engine)
  // With --json, stdout carries the one outcome object; the live tree and notices go to stderr.
  const json = values.json ?? false
  const say = json ? (line: string) => console.error(line) : (line: string) => console.log(line)
  engine.subscribe(printTree(say))
  engine.subscribe(answerRootApprovals(engine.supervisor, Boolean(process.stdin.isTTY && process.stdout.isTTY)))
  const loadedProfiles = engine.profilesFor(projectDir)
  // Load errors are trace events (printed with the tree); warnings only go to the terminal.
  for (const warning of loadedProfiles.warnings) console.error(`arbor: profile ${warning.file}: ${warning.message}`)
  const started = Date.now()
  const jobId = engine.supervisor.startJob({
    project: projectDir,
    task: planned.task,
    settings,
    loadedProfiles,
    autoApprove: values['auto-approve-subagents'] ?? false,
  })
  await engine.waitForJob(jobId)
  const { job, agents } = await engine.handlers.getTree({ job_id: jobId })
  const root = agents.find((agent) => agent.parent_id === null)
  const result = root ? await rootResult(engine, root.id) : null
  const durationMs = job.ended_at ? Date.parse(job.ended_at) - Date.parse(job.created_at) : Date.now() - started
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome(job, agents, result, durationMs, dbFile))}\n`)
  } else {
    if (result !== null) console.log(`result:\n${typeof result === 'string' ? result : JSON.stringify(result, null, 2)}`)
    const cost = job.cost_usd === null ? '' : `, ${formatCost(job.cost_usd)}`
    const seconds = (durationMs / 1000).toFixed(1)
    console.log(`${agents.length} agents, ${job.usage.input_tokens + job.usage.output_tokens} tokens${cost}, ${seconds} s; trace in ${dbFile}`)
  }
  if (values.export) {
    const file = path.resolve(values.export)
    const lines = await engine.exportJsonl(jobId, file)
    say(`exported ${lines} lines to ${file}`)
  }
  await engine.close()
  return job.status === 'completed' ? 0 : 1
}

/** The root agent's final answer: its `agent.end` event's `result` (null when it gave none). */
async function rootResult(engine: Engine, rootId: string): Promise<unknown> {
  let afterSeq = 0
  for (;;) {
    const { events } = await engine.handlers.getEvents({ agent_id: rootId, after_seq: afterSeq, limit: 5000 })
    const end = events.find((event) => event.type === 'agent.end')
    if (end) return end.data.result ?? null
    const last = events.at(-1)
    if (!last) return null
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
