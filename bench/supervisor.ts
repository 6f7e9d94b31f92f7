/**
 * Supervisor overhead per model step. Each step is one scripted model call that answers at once
 * with one `list_files` call, run by the real tool on a small project; a job is `steps` such
 * steps, then attempt_completion.
 *  - Direct (the floor): the agent loop (runAgent) without the supervisor, in a fresh process of
 *    its own as every agent has, built as the agent is (bench/direct-agent.ts), its messages
 *    recorded and parsed by the tests' RecordingSupervisor, the scripted provider called in
 *    process.
 *  - Direct, warm: the same loop in this long-lived process, after a first run compiled it.
 *    Printed beside it: what a process that lives for one agent costs against code that is hot.
 *  - Supervised: the real engine (store, writer, supervisor) and one real agent process, started
 *    as the CLI starts it (builtAgentEntry: from the build's startup snapshot for this Node, else
 *    out/main/agent.js): each model call travels to the supervisor over IPC, is answered there,
 *    and every event is checked, stored and projected. The warm pool replaces the taken process
 *    at its next quiet moment, as in a real job: here, where steps come back to back, that is
 *    mostly after the job (supervisor/warm-pool.ts).
 * Each is timed from the end of the first model call (for the supervised run, its first stored
 * `llm.call`) to the end, per step, so process start is left out of all three. The figure is
 * (supervised − direct) per step, in ms. Beside it, the CPU a step costs (Linux): each direct
 * loop's process, and the supervisor's plus the agent's process over the supervised steps; on a
 * loaded machine wall time is mostly waiting for a core, CPU time is the work done.
 * Needs the build (npm run build).
 * Run: node --import tsx bench/supervisor.ts [jobs] [steps per job]
 */
import { fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { build as esbuild } from 'esbuild'
import { builtAgentEntry } from '../src-main/cli/agent-entry'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import { listingScript, runDirect, type DirectRun } from './direct-agent'
import { record } from './results'

const jobs = Number(process.argv[2] ?? 15)
/** The general profile allows 50 steps; the completion is one of them. */
const steps = Number(process.argv[3] ?? 40)
const agentEntry = builtAgentEntry(resolve(import.meta.dirname, '../out/main'))
if (!agentEntry) {
  console.error('bench/supervisor.ts needs the build: run npm run build first')
  process.exit(2)
}

const script = listingScript(steps)
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-supervisor-'))
const project = join(dir, 'project')
mkdirSync(project)
writeFileSync(join(project, 'README.md'), '# Bench project\n')
writeFileSync(join(project, 'index.js'), 'export const answer = 42\n')

/**
 * CPU time used so far, in ms: this process's, or another's (null where there is none), the sum
 * of its threads' run time (/proc/<pid>/task/<tid>/schedstat, in ns; /proc/<pid>/stat counts
 * 10 ms ticks, too coarse for a few ms over a job).
 */
const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null
  try {
    const threads = readdirSync(`/proc/${pid}/task`)
    return threads.reduce(
      (sum, thread) => sum + Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e6,
      0,
    )
  } catch {
    return null
  }
}

/**
 * bench/direct-agent.ts built as the agent is built (electron.vite.config.ts: one minified
 * bundle), so the floor runs the same code the same way, from a bare `node`.
 */
const directBundle = join(dir, 'direct-agent.mjs')
await esbuild({
  entryPoints: [join(import.meta.dirname, 'direct-agent.ts')],
  outfile: directBundle,
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
})

/** The loop in a fresh process of its own. */
function directFresh(): Promise<DirectRun> {
  return new Promise((resolve, reject) => {
    const child = fork(directBundle, [project, String(steps)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.once('message', (run) => resolve(run as DirectRun))
    child.once('error', reject)
    child.once('exit', (code) => code !== 0 && reject(new Error(`bench/direct-agent.ts exited ${code}`)))
  })
}

const engine = createEngine({
  dbFile: join(dir, 'arbor.db'),
  processHost: new ForkProcessHost(agentEntry),
  projectDir: project,
  killGraceMs: 1000,
})

/** Both processes' CPU now; read while the agent's process still runs. */
const cpuNow = (rootId: string | null) => ({
  supervisor: ownCpuMs(),
  agent: processCpuMs(rootId ? engine.supervisor.pidOf(rootId) : undefined),
})

async function supervised(): Promise<{ ms: number; cpu: { supervisorMs: number; agentMs: number } | null }> {
  let firstCall: number | null = null
  let ended: number | null = null
  let rootId: string | null = null
  let calls = 0
  let cpuFirst: ReturnType<typeof cpuNow> | null = null
  let cpuLast: ReturnType<typeof cpuNow> | null = null
  const stop = engine.subscribe((notification) => {
    if (!('events' in notification)) return
    for (const event of notification.events) {
      if (event.type === 'llm.call') {
        calls += 1
        if (calls === 1) firstCall = performance.now()
        // From the first call to the last listing's call: the agent's process is still there to read.
        if (calls === 1) cpuFirst = cpuNow(rootId)
        if (calls === steps) cpuLast = cpuNow(rootId)
      }
      if (event.type === 'agent.start' && event.depth === 0) rootId = event.agent_id
      if (event.type === 'agent.end' && event.agent_id === rootId) ended = performance.now()
    }
  })
  const jobId = engine.supervisor.startJob({
    project,
    task: 'supervisor bench',
    settings: defaultSettings({ script: { root: script, children: {} } }),
  })
  await engine.waitForJob(jobId)
  stop()
  if (firstCall === null || ended === null) throw new Error('the supervised job recorded no llm.call or no agent.end')
  // From the end of the first call to the end: the other `steps` calls and their tools.
  const ms = (ended - firstCall) / steps
  const [first, last] = [cpuFirst as ReturnType<typeof cpuNow> | null, cpuLast as ReturnType<typeof cpuNow> | null]
  if (!first || !last || first.agent === null || last.agent === null) return { ms, cpu: null }
  return {
    ms,
    cpu: { supervisorMs: (last.supervisor - first.supervisor) / (steps - 1), agentMs: (last.agent - first.agent) / (steps - 1) },
  }
}

try {
  const warmRuns: DirectRun[] = []
  const freshRuns: DirectRun[] = []
  const supervisedRuns: Awaited<ReturnType<typeof supervised>>[] = []
  await runDirect(project, steps) // warm this process's loop and the engine: the first run compiles the code
  await supervised()
  for (let index = 0; index < jobs; index++) {
    freshRuns.push(await directFresh())
    warmRuns.push(await runDirect(project, steps))
    supervisedRuns.push(await supervised())
  }
  const fresh = median(freshRuns.map((run) => run.ms))
  const warm = median(warmRuns.map((run) => run.ms))
  const through = median(supervisedRuns.map((run) => run.ms))
  console.log(`supervisor bench: ${jobs} jobs of ${steps + 1} steps each way, medians, node ${process.version}`)
  console.log(
    `per step: direct in a fresh process ${fresh.toFixed(3)} ms, direct warm in this process ${warm.toFixed(3)} ms; supervised (engine + 1 agent process) ${through.toFixed(3)} ms`,
  )
  record({ name: 'supervisor.step_ms', value: through, unit: 'ms', baseline: fresh })
  record({ name: 'supervisor.overhead_per_step', value: through - fresh, unit: 'ms', baseline: null, goal: { atMost: 1, on: 'value' } })
  record({ name: 'supervisor.overhead_per_step_vs_warm_loop', value: through - warm, unit: 'ms', baseline: null })
  const cpus = supervisedRuns.flatMap((run) => (run.cpu ? [run.cpu] : []))
  if (cpus.length > 0) {
    const freshCpu = median(freshRuns.map((run) => run.cpuMs))
    const warmCpu = median(warmRuns.map((run) => run.cpuMs))
    const supervisorCpu = median(cpus.map((cpu) => cpu.supervisorMs))
    const agentCpu = median(cpus.map((cpu) => cpu.agentMs))
    console.log(
      `CPU per step: direct fresh ${freshCpu.toFixed(3)} ms, warm ${warmCpu.toFixed(3)} ms; supervised: supervisor process ${supervisorCpu.toFixed(3)} ms + agent process ${agentCpu.toFixed(3)} ms (over ${steps - 1} steps)`,
    )
    record({ name: 'supervisor.cpu_per_step', value: supervisorCpu + agentCpu, unit: 'ms', baseline: freshCpu })
  }
} finally {
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
}
