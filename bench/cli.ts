/**
 * The CLI's quick answers against a bare `node -e ''`, in turns so that all see the same load:
 * `arbor --help`, `arbor --version` and a usage error (an unknown flag), each the built CLI
 * (`node out/main/cli.js`) started from nothing, timed from spawn to exit. None of them may load
 * a command's code (src-main/cli/main.ts imports each command when it runs). Goal: each ≤ 1.5×
 * the bare start, medians of `runs` rounds.
 * Needs the build. Run: node --import tsx bench/cli.ts [runs]
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { record } from './results'

const runs = Number(process.argv[2] ?? 40)
const cli = resolve(import.meta.dirname, '../out/main/cli.js')
if (!existsSync(cli)) {
  console.error('bench/cli.ts needs the build: run npm run build first')
  process.exit(2)
}

const cases = {
  bare: { args: ['-e', ''], status: 0 },
  help: { args: [cli, '--help'], status: 0 },
  version: { args: [cli, '--version'], status: 0 },
  usage_error: { args: [cli, 'run', '--no-such-flag'], status: 2 },
} as const
type Case = keyof typeof cases

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

function timed(name: Case): number {
  const { args, status } = cases[name]
  const started = performance.now()
  const result = spawnSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } })
  const ms = performance.now() - started
  if (result.status !== status) throw new Error(`node ${args.join(' ')} exited ${result.status}, expected ${status}`)
  return ms
}

const times = Object.fromEntries(Object.keys(cases).map((name) => [name, [] as number[]])) as Record<Case, number[]>
for (const name of Object.keys(cases) as Case[]) timed(name) // the first start of each reads its files from disk
for (let round = 0; round < runs; round++) for (const name of Object.keys(cases) as Case[]) times[name].push(timed(name))

const bare = median(times.bare)
console.log(`cli bench: ${runs} rounds, medians, node ${process.version}`)
record({ name: 'cli.bare_node', value: bare, unit: 'ms', baseline: null })
for (const name of ['help', 'version', 'usage_error'] as const)
  record({ name: `cli.${name}`, value: median(times[name]), unit: 'ms', baseline: bare, goal: { atMost: 1.5 } })
