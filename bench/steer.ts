/**
 * Steer latency: from `steerAgent` (the user sends) to the supervisor hearing that the agent took
 * the message in, at its next step boundary (before its next model call), for an agent whose steps
 * come back to back: each a scripted model call that answers at once with one `list_files` call.
 * So the wait is the agent's IPC both ways plus the rest of the step under way, never a model call
 * or a command left to finish. Messages are sent one at a time, each a random 0–3 ms after the last
 * was delivered, so they fall anywhere in a step.
 *
 * Baseline, measured in the same run: a round trip over IPC to a bare forked Node process that
 * echoes each message (the least a message to an agent process and its answer can take). Beside
 * it, the step time of the same job without messages.
 * Needs the build (npm run build).
 * Run: node --import tsx bench/steer.ts [jobs] [steers per job]
 */
import { fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { builtAgentEntry } from '../src-main/cli/agent-entry'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import { listingScript } from './direct-agent'
import { record } from './results'

const jobs = Number(process.argv[2] ?? 6)
const steersPerJob = Number(process.argv[3] ?? 20)
/** Steps of the job: enough that every message finds a boundary before the job ends (the general profile allows 50). */
const steps = 45
const agentEntry = builtAgentEntry(resolve(import.meta.dirname, '../out/main'))
if (!agentEntry) {
  console.error('bench/steer.ts needs the build: run npm run build first')
  process.exit(2)
}

const percentile = (values: number[], share: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))] ?? Number.NaN

const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-steer-'))
const project = join(dir, 'project')
mkdirSync(project)
writeFileSync(join(project, 'README.md'), '# Bench project\n')

/** Round trips to a bare forked Node process that echoes every message, in ms. */
async function ipcRoundTrips(count: number): Promise<number[]> {
  const echo = join(dir, 'echo.cjs')
  writeFileSync(echo, "process.on('message', (message) => process.send(message))\n")
  const child = fork(echo, [], { stdio: 'ignore' })
  const times: number[] = []
  try {
    for (let i = 0; i < count + 20; i++) {
      const started = performance.now()
      await new Promise<void>((done) => {
        child.once('message', () => done())
        child.send({ type: 'steer', steer_id: `s${i}`, text: `message ${i}`, sent_at: new Date().toISOString() })
      })
      if (i >= 20) times.push(performance.now() - started)
      await sleep(Math.random() * 3)
    }
  } finally {
    child.kill()
  }
  return times
}

const engine = createEngine({ dbFile: join(dir, 'arbor.db'), processHost: new ForkProcessHost(agentEntry), projectDir: project })

/** One job: the root's steps back to back, `steers` messages sent to it one at a time; their latencies and the job's step time. */
async function steeredJob(steers: number): Promise<{ latencies: number[]; stepMs: number }> {
  let firstCall: number | null = null
  let lastCall = 0
  let calls = 0
  const stop = engine.subscribe((notification) => {
    if (!('events' in notification)) return
    for (const event of notification.events) {
      if (event.type !== 'llm.call') continue
      calls += 1
      lastCall = performance.now()
      firstCall ??= lastCall
    }
  })
  const jobId = engine.supervisor.startJob({
    project,
    task: 'steer bench',
    settings: defaultSettings({ script: { root: listingScript(steps), children: {} } }),
  })
  const rootId = engine.supervisor.rootAgentId(jobId)!
  while (firstCall === null) await sleep(1)
  const latencies: number[] = []
  for (let i = 0; i < steers; i++) {
    const sent = performance.now()
    try {
      await engine.supervisor.steerAgent(rootId, `steer ${i}: keep going`)
    } catch {
      break // the job ended first: fewer samples, never a wrong one
    }
    latencies.push(performance.now() - sent)
    await sleep(Math.random() * 3)
  }
  await engine.waitForJob(jobId)
  stop()
  return { latencies, stepMs: calls > 1 ? (lastCall - (firstCall as number)) / (calls - 1) : Number.NaN }
}

try {
  await steeredJob(5) // the first job warms the engine and the pool
  const latencies: number[] = []
  const withSteers: number[] = []
  for (let job = 0; job < jobs; job++) {
    const run = await steeredJob(steersPerJob)
    latencies.push(...run.latencies)
    withSteers.push(run.stepMs)
  }
  const quiet = [await steeredJob(0), await steeredJob(0)].map((run) => run.stepMs)
  const ipc = await ipcRoundTrips(200)
  const p50 = percentile(latencies, 0.5)
  console.log(
    `${latencies.length} messages: p50 ${p50.toFixed(2)} ms, p90 ${percentile(latencies, 0.9).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms; ` +
      `a step takes ${percentile(quiet, 0.5).toFixed(2)} ms without messages, ${percentile(withSteers, 0.5).toFixed(2)} ms with them; ` +
      `a bare IPC round trip ${percentile(ipc, 0.5).toFixed(3)} ms (p50)`,
  )
  record({ name: 'steer.delivery_p50_ms', value: p50, unit: 'ms', baseline: percentile(ipc, 0.5) })
  record({ name: 'steer.delivery_p90_ms', value: percentile(latencies, 0.9), unit: 'ms', baseline: percentile(quiet, 0.5) })
} finally {
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
}
