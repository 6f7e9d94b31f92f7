/**
 * Supervisor overhead per model step. Each step is one scripted model call that answers at once
 * with one `list_files` call, run by the real tool on a small project; a job is `steps` such
 * steps, then attempt_completion.
 *  - Direct (baseline): the agent loop (runAgent) in this process, its messages recorded and
 *    parsed by the tests' RecordingSupervisor, the scripted provider called in process.
 *  - Supervised: the real engine (store, writer, supervisor) and one real agent process
 *    (out/main/agent.js, forked with no execArgv): each model call travels to the supervisor over
 *    IPC, is answered there, and every event is checked, stored and projected. Timed from the
 *    agent's first stored `llm.call` to its stored `agent.end`, so the process start is left out.
 * The figure is (supervised − direct) per step, in ms. Needs the build (npm run build).
 * Run: node --import tsx bench/supervisor.ts [jobs] [steps per job]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { makeInit, runScripted } from '../src-main/core/agent/testing'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import type { ScriptTurn } from '../src-main/core/trace/model'
import { record } from './results'

const jobs = Number(process.argv[2] ?? 8)
/** The general profile allows 50 steps; the completion is one of them. */
const steps = Number(process.argv[3] ?? 40)
const agentEntry = resolve(import.meta.dirname, '../out/main/agent.js')
if (!existsSync(agentEntry)) {
  console.error('bench/supervisor.ts needs the build: run npm run build first')
  process.exit(2)
}

const listing: ScriptTurn = { tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }
const script: ScriptTurn[] = [...Array.from({ length: steps }, () => listing), { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'listed' } }] }]
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-supervisor-'))
const project = join(dir, 'project')
mkdirSync(project)
writeFileSync(join(project, 'README.md'), '# Bench project\n')
writeFileSync(join(project, 'index.js'), 'export const answer = 42\n')

async function direct(): Promise<number> {
  const started = performance.now()
  const { outcome } = await runScripted(makeInit(project, script))
  const ms = performance.now() - started
  if (outcome.status !== 'completed') throw new Error(`the direct run ended ${outcome.status}`)
  return ms / (steps + 1)
}

const engine = createEngine({
  dbFile: join(dir, 'arbor.db'),
  processHost: new ForkProcessHost({ entry: agentEntry, execArgv: [] }),
  projectDir: project,
  killGraceMs: 1000,
})

async function supervised(): Promise<number> {
  let firstCall: number | null = null
  let ended: number | null = null
  let rootId: string | null = null
  const stop = engine.subscribe((notification) => {
    if (!('events' in notification)) return
    for (const event of notification.events) {
      if (event.type === 'llm.call' && firstCall === null) firstCall = performance.now()
      if (event.type === 'agent.start' && event.depth === 0) rootId = event.agent_id
      if (event.type === 'agent.end' && event.agent_id === rootId) ended = performance.now()
    }
  })
  const jobId = engine.supervisor.startJob({ project, task: 'supervisor bench', settings: defaultSettings({ script: { root: script, children: {} } }) })
  await engine.waitForJob(jobId)
  stop()
  if (firstCall === null || ended === null) throw new Error('the supervised job recorded no llm.call or no agent.end')
  // From the end of the first call to the end: the other `steps` calls and their tools.
  return (ended - firstCall) / steps
}

try {
  const directMs: number[] = []
  const supervisedMs: number[] = []
  await direct() // warm both paths: the first run compiles the code
  await supervised()
  for (let index = 0; index < jobs; index++) {
    directMs.push(await direct())
    supervisedMs.push(await supervised())
  }
  const base = median(directMs)
  const through = median(supervisedMs)
  console.log(`supervisor bench: ${jobs} jobs of ${steps + 1} steps each way, medians, node ${process.version}`)
  console.log(`direct: the agent loop in process, ${base.toFixed(3)} ms per step; supervised: engine + 1 agent process, ${through.toFixed(3)} ms per step`)
  record({ name: 'supervisor.step_ms', value: through, unit: 'ms', baseline: base })
  record({ name: 'supervisor.overhead_per_step', value: through - base, unit: 'ms', baseline: null, goal: { atMost: 1, on: 'value' } })
} finally {
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
}
