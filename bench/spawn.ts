/**
 * Agent processes against the real floor, a bare `node -e` that only says hello over IPC (no
 * `--import tsx`, nothing inherited: `execArgv` empty), all in one run:
 * - start: from spawning to the first IPC message, the built agent as the CLI starts it (from the
 *   startup snapshot this Node made, see src-main/cli/agent-entry.ts) against bare node,
 *   taken in turns so all see the same load; where there is no snapshot an agent starts from
 *   agent-cached.cjs with its V8 code cache (what Electron's utility processes start; measured
 *   here in this Node, with the same goal), or from agent.js, measured too without a goal;
 * - idle memory: their resident set once started and waiting;
 * - a granted `task` to the child's first event (the event times the supervisor and the child
 *   stamp), with the warm pool (2) and without (0).
 * Needs the build. Run: node --import tsx bench/spawn.ts [n]
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { builtAgentEntry } from '../src-main/cli/agent-entry'
import { codeCacheDirVariable } from '../src-main/core/protocol/code-cache'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import type { TraceEvent } from '../src-main/core/trace/events'
import { record } from './results'

const count = Number(process.argv[2] ?? 15)
const outDir = resolve(import.meta.dirname, '../out/main')
const agentEntry = builtAgentEntry(outDir)
if (!agentEntry) {
  console.error('bench/spawn.ts needs the build: run npm run build first')
  process.exit(2)
}
const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-spawn-'))
const host = new ForkProcessHost(agentEntry)
const fromSnapshot = agentEntry.execArgv !== undefined
const bundleHost = new ForkProcessHost({ entry: join(outDir, 'agent.js') })
const cachedHost = new ForkProcessHost({
  entry: join(outDir, 'agent-cached.cjs'),
  env: { [codeCacheDirVariable]: join(dir, 'code-cache') },
})
const hello = "process.send({ type: 'ready' }); process.on('disconnect', () => process.exit(0))"

const residentMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms))

/** Time to the first message, and resident memory 300 ms later (started and idle). */
async function startAndIdle(
  start: () => { pid: number | undefined; once: (listener: () => void) => void; end: () => Promise<unknown> },
): Promise<{ ms: number; mb: number }> {
  const started = performance.now()
  const child = start()
  await new Promise<void>((done) => child.once(done))
  const ms = performance.now() - started
  await pause(300)
  const mb = residentMb(child.pid!)
  await child.end()
  return { ms, mb }
}

const bareNode = () => {
  const child: ChildProcess = spawn(process.execPath, ['-e', hello], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  return {
    pid: child.pid,
    once: (listener: () => void) => child.once('message', listener),
    end: () => (child.disconnect(), new Promise((done) => child.once('exit', done))),
  }
}

const builtAgent = (from: ForkProcessHost) => () => {
  const agent = from.spawn({ agentId: 'bench' })
  const exited = new Promise((done) => agent.onExit(done))
  return { pid: agent.pid, once: (listener: () => void) => agent.onMessage(listener), end: () => (agent.kill(true), exited) }
}

async function processFigures(): Promise<void> {
  const bare: { ms: number; mb: number }[] = []
  const agent: { ms: number; mb: number }[] = []
  const bundle: { ms: number; mb: number }[] = []
  const cached: { ms: number; mb: number }[] = []
  // The first start from agent-cached.cjs compiles and writes the cache the others start from.
  await startAndIdle(builtAgent(cachedHost))
  for (let index = 0; index < count; index++) {
    bare.push(await startAndIdle(bareNode))
    agent.push(await startAndIdle(builtAgent(host)))
    cached.push(await startAndIdle(builtAgent(cachedHost)))
    if (fromSnapshot) bundle.push(await startAndIdle(builtAgent(bundleHost)))
  }
  const bareMs = median(bare.map((each) => each.ms))
  const bareMb = median(bare.map((each) => each.mb))
  record({ name: 'agent.ready', value: median(agent.map((each) => each.ms)), unit: 'ms', baseline: bareMs, goal: { atMost: 1.5 } })
  record({ name: 'agent.idle_rss', value: median(agent.map((each) => each.mb)), unit: 'MB', baseline: bareMb, goal: { atMost: 1.25 } })
  record({
    name: 'agent.ready.code_cache',
    value: median(cached.map((each) => each.ms)),
    unit: 'ms',
    baseline: bareMs,
    goal: { atMost: 1.5 },
  })
  record({
    name: 'agent.idle_rss.code_cache',
    value: median(cached.map((each) => each.mb)),
    unit: 'MB',
    baseline: bareMb,
    goal: { atMost: 1.25 },
  })
  if (fromSnapshot) {
    record({ name: 'agent.ready.without_snapshot', value: median(bundle.map((each) => each.ms)), unit: 'ms', baseline: bareMs })
    record({ name: 'agent.idle_rss.without_snapshot', value: median(bundle.map((each) => each.mb)), unit: 'MB', baseline: bareMb })
  }
}

/**
 * A root that grants `count` explore children one after another, thinking 400 ms before each as
 * a model would (time for the pool to refill); each child completes at once. Returns, per child,
 * its first event's time minus its `subagent.start`'s.
 */
async function taskToFirstEvent(warmPool: number): Promise<number[]> {
  const engine = createEngine({ dbFile: join(dir, `pool-${warmPool}.db`), processHost: host, warmPool, projectDir: dir })
  const grantedAt = new Map<string, number>()
  const firstEventAt = new Map<string, number>()
  engine.subscribe(({ events }) => {
    for (const event of events as TraceEvent[]) {
      if (event.type === 'subagent.start') grantedAt.set(String(event.data.child_agent_id), Date.parse(event.ts))
      if (event.type === 'message' && event.agent_id && !firstEventAt.has(event.agent_id))
        firstEventAt.set(event.agent_id, Date.parse(event.ts))
    }
  })
  const root = Array.from({ length: count }, (_, index) => ({
    delay_ms: 400,
    tool_calls: [{ name: 'task', arguments: { description: `child ${index}`, subagent_type: 'explore', prompt: 'say done' } }],
  }))
  const done = JSON.stringify({ status: 'completed', summary: 'done', findings: [], evidence: [], unresolved_questions: [] })
  const children = Object.fromEntries(
    root.map((_, index) => [`child ${index}`, [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: done } }] }]]),
  )
  const jobId = engine.supervisor.startJob({ project: dir, task: 'bench', settings: defaultSettings({ script: { root, children } }) })
  await engine.waitForJob(jobId)
  await engine.close()
  return [...grantedAt].map(([id, granted]) => (firstEventAt.get(id) ?? Number.NaN) - granted)
}

async function taskFigures(): Promise<void> {
  const cold = median(await taskToFirstEvent(0))
  // The first child may find the pool still filling (it fills on the first agent's start).
  const warm = median((await taskToFirstEvent(2)).slice(1))
  record({ name: 'agent.task_to_first_event.no_pool', value: cold, unit: 'ms', baseline: null })
  record({ name: 'agent.task_to_first_event.pool', value: warm, unit: 'ms', baseline: cold, goal: { atMost: 5, on: 'value' } })
}

try {
  await processFigures()
  await taskFigures()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
