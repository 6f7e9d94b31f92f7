/**
 * Many agents at once, in one run:
 * - a fan-out of 200 children at concurrency 50, each making 10 scripted tool calls (10 turns of
 *   one `list_files`), against one child making all 2,000 calls alone (40 turns of 50: a general
 *   agent stops at 50 steps). Both with the built agent started as the CLI starts it (from the
 *   build's startup snapshot for this Node), warm pool on, scripted model at once;
 * - the floor under that fan-out: 200 bare `node` processes that only say hello over IPC and
 *   exit, started 50 at a time. No fan-out of 200 processes can beat it, so the fan-out is also
 *   printed against it, to show how much of the time is the processes themselves;
 * - the main process's resident memory while 200 agents are live at once (each waits in its
 *   first model call).
 * Needs the build. Run: node --import tsx bench/agents.ts [agents]
 */
import { fork } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { builtAgentEntry } from '../src-main/cli/agent-entry'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import { runLoadJob } from '../src-main/core/testing/load-job'
import { record } from './results'

const agents = Number(process.argv[2] ?? 200)
const agentEntry = builtAgentEntry(resolve(import.meta.dirname, '../out/main'))
if (!agentEntry) {
  console.error('bench/agents.ts needs the build: run npm run build first')
  process.exit(2)
}
const host = new ForkProcessHost(agentEntry)
const root = mkdtempSync(join(tmpdir(), 'arbor-bench-agents-'))

async function fanOutAgainstOne(): Promise<void> {
  const one = await runLoadJob(join(root, 'one'), { agents: 1, concurrency: 1, turns: (agents * 10) / 50, callsPerTurn: 50 }, host)
  const fanOut = await runLoadJob(join(root, 'fan-out'), { agents, concurrency: 50, turns: 10, callsPerTurn: 1 }, host)
  record({ name: `agents.fan_out_${agents}x10`, value: fanOut.durationMs, unit: 'ms', baseline: one.durationMs, goal: { atMost: 3 } })
  const floor = await bareProcesses(agents, 50)
  record({ name: `agents.bare_node_${agents}_at_50`, value: floor, unit: 'ms', baseline: one.durationMs })
  record({ name: `agents.fan_out_${agents}x10_vs_bare_node`, value: fanOut.durationMs, unit: 'ms', baseline: floor })
}

/** Wall time for `count` bare `node` processes, `concurrency` at a time, each started, heard from over IPC, and exited. */
async function bareProcesses(count: number, concurrency: number): Promise<number> {
  const hello = join(root, 'hello.cjs')
  writeFileSync(hello, "process.send({ type: 'ready' }); process.on('disconnect', () => process.exit(0))\n")
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const child = fork(hello, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
      child.once('message', () => child.disconnect())
      child.once('error', reject)
      child.once('exit', () => resolve())
    })
  let started = 0
  const begun = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++
        await one()
      }
    }),
  )
  return performance.now() - begun
}

/**
 * The main process's RSS once `agents` children are all live (each has sent its first message and
 * waits in its first model call); then the tree is killed. Printed without a baseline: the same
 * process before the job measured more (tsx and esbuild's transforms, freed later), not a floor.
 */
async function mainRssAtLive(): Promise<void> {
  const dir = join(root, 'live')
  const project = join(dir, 'project')
  mkdirSync(project, { recursive: true })
  writeFileSync(join(project, 'README.md'), '# Live agents\n')
  const engine = createEngine({ dbFile: join(dir, 'arbor.db'), processHost: host, projectDir: project })
  try {
    const labels = Array.from({ length: agents }, (_, index) => `live ${index}`)
    const completion = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
    const script = {
      root: [
        {
          tool_calls: labels.map((description) => ({
            name: 'task',
            arguments: { description, subagent_type: 'worker', prompt: 'wait, then finish' },
          })),
        },
        completion('done'),
      ],
      children: Object.fromEntries(labels.map((label) => [label, [{ delay_ms: 600_000, text: 'waiting' }, completion('done')]])),
    }
    const settings = defaultSettings({ max_concurrent_children: agents, max_spawns_per_turn: 0, max_spawns_per_minute: 0, script })
    const live = new Set<string>()
    const allLive = new Promise<void>((resolve) => {
      engine.subscribe(({ events }) => {
        for (const event of events) if (event.type === 'message' && event.depth === 1 && event.agent_id) live.add(event.agent_id)
        if (live.size >= agents) resolve()
      })
    })
    const jobId = engine.supervisor.startJob({ project, task: 'live', settings })
    await allLive
    let peak = 0
    for (let sample = 0; sample < 10; sample++) {
      peak = Math.max(peak, process.memoryUsage().rss / 2 ** 20)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    record({ name: `agents.main_rss_at_${agents}_live`, value: peak, unit: 'MB', baseline: null })
    engine.supervisor.kill(engine.supervisor.rootAgentId(jobId)!)
    await engine.waitForJob(jobId)
  } finally {
    await engine.close()
  }
}

try {
  // First, so that the fan-out has not grown the heap it reports.
  await mainRssAtLive()
  await fanOutAgainstOne()
} finally {
  rmSync(root, { recursive: true, force: true })
}
