import { parseArgs } from 'node:util'
import { newJobLimits as limits } from '../core/api/job-form'
import { groupDigits } from '../core/digits'
import { spawnGuardDefaults } from '../core/trace/model'
import { runDemo, runJob } from './commands/run'
import { runExport } from './commands/export'
import { runImport, runOpen } from './commands/import'
import { runServe } from './commands/serve'
import { JobRefused } from './job-options'
import { printable } from './approvals'
import { UsageError } from './usage-error'

const usage = `Usage:
  arbor demo [DIR] [--db FILE] [--export FILE.jsonl]
  arbor run [DIR] --task TEXT [--provider scripted|openai|anthropic|openai_compatible] [--model M]
            [--light-model M] [--base-url URL] [--max-depth N] [--max-children N]
            [--max-spawns-per-turn N] [--max-spawns-per-minute N] [--agent-timeout SECONDS]
            [--job-token-budget N] [--job-cost-budget USD] [--allow-network] [--no-sandbox [--yes]]
            [--auto-approve-subagents] [--warm-pool N] [--db FILE] [--export FILE.jsonl] [--json]
  arbor export --db FILE (--job ID | --last) --out FILE [--format jsonl|otlp]
  arbor export --db FILE (--job ID | --last) --otlp-endpoint URL [--header NAME=VALUE ...]
  arbor serve [DIR] [--port N] [--warm-pool N] [--db FILE]
  arbor import FILE.jsonl [--db FILE]
  arbor open FILE.jsonl [--port N] [--db FILE]

run checks its options as the new-job form does: --max-depth 0-${limits.max_depth} (default 1),
--max-children 1-${limits.max_concurrent_children} (default 3), --max-spawns-per-turn 0-${limits.max_spawns_per_turn} (default ${spawnGuardDefaults.max_spawns_per_turn}),
--max-spawns-per-minute 0-${limits.max_spawns_per_minute} (default ${spawnGuardDefaults.max_spawns_per_minute}; 0 turns a spawn guard off),
--agent-timeout 1-${limits.agent_timeout_s} seconds per agent (default none), --job-token-budget up to
${groupDigits(limits.job_token_budget)}, --job-cost-budget up to ${groupDigits(limits.job_cost_budget)} USD and only with a price for every
model the job uses. --allow-network lets commands reach the network (off by default).
--no-sandbox runs commands without the OS sandbox: it prints a warning and asks on a
terminal; without a terminal it needs --yes, else the job is refused (exit 2).
--warm-pool N keeps N agent processes started ahead, each used by one agent only (default 2;
0 starts every agent's process when it is needed).

export --otlp-endpoint sends the job's spans to an OpenTelemetry collector over OTLP/HTTP
(protobuf): Langfuse https://cloud.langfuse.com/api/public/otel/v1/traces, Phoenix
http://localhost:6006/v1/traces, Jaeger v2 or the Collector http://localhost:4318/v1/traces.
A full URL is used as given; a base URL without a path gets /v1/traces. --header (repeatable)
adds a request header, e.g. --header "Authorization=Basic …"; header values are never printed.
A collector that cannot be reached, refuses (4xx/5xx) or does not answer in 10 s: exit 1.
Traces are also sent after every job when Settings ▸ Trace export is on (docs/otlp.md).

Data is stored in $ARBOR_DATA_DIR/arbor.db (default ~/.local/share/arbor/arbor.db) unless --db is given.`

const options = {
  db: { type: 'string' },
  export: { type: 'string' },
  task: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'light-model': { type: 'string' },
  'base-url': { type: 'string' },
  'max-depth': { type: 'string' },
  'max-children': { type: 'string' },
  'job-token-budget': { type: 'string' },
  'job-cost-budget': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'max-spawns-per-turn': { type: 'string' },
  'max-spawns-per-minute': { type: 'string' },
  'allow-network': { type: 'boolean' },
  'no-sandbox': { type: 'boolean' },
  yes: { type: 'boolean' },
  'auto-approve-subagents': { type: 'boolean' },
  json: { type: 'boolean' },
  job: { type: 'string' },
  last: { type: 'boolean' },
  out: { type: 'string' },
  format: { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  header: { type: 'string', multiple: true },
  port: { type: 'string' },
  'warm-pool': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

export type CliValues = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values']

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage)
    return command ? 0 : 2
  }
  const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true })
  if (values.help) {
    console.log(usage)
    return 0
  }
  if (positionals.length > 1) throw new UsageError(`too many arguments: ${positionals.join(' ')}`)
  const dir = positionals[0] ?? process.cwd()
  switch (command) {
    case 'import':
      return runImport(positionals[0], values)
    case 'open':
      return runOpen(positionals[0], values)
    case 'demo':
      return runDemo(dir, values)
    case 'run':
      return runJob(dir, values)
    case 'export':
      return runExport(values)
    case 'serve':
      return runServe(positionals[0], values)
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof JobRefused) {
      console.error(`arbor: ${printable(error.message)}`)
      process.exitCode = 2
      return
    }
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`arbor: ${printable(error.message)}\n\n${usage}`)
      process.exitCode = 2
      return
    }
    // Messages may quote a file or a model (an import error, a refused job): no terminal escapes.
    console.error(`arbor: ${printable(error instanceof Error ? error.message : String(error))}`)
    process.exitCode = 1
  },
)
