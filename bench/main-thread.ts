/**
 * The main thread under load: the desktop app runs the engine (supervisor, trace writer, SQLite)
 * in Electron's main process, whose thread also serves the window's IPC. This runs the engine in
 * this process as src-main/index.ts does, through the load job of bench/load.ts (200 agents, 50
 * at a time, about 100,000 events; agents from the build, started as the CLI starts them), and
 * watches this thread with `perf_hooks.monitorEventLoopDelay`. Beside it, in the same run and
 * over the same seconds, a bare idle Node process watches its own loop the same way: what any
 * loop on this machine suffers while the load runs (the floor). Figures are the delay beyond the
 * sampling interval (a 10 ms timer that fired after 14 ms counts 4 ms), p99 and max of each.
 * Twice: (a) the trace writer on its own thread (out/main/writer-worker.js, as the app and
 * `serve` run it), (b) the writer on this thread (as before, and as one-shot CLI commands run it).
 * Goal: p99 ≤ 16 ms (a frame) and max ≤ 100 ms on the engine's thread, for (a).
 * Needs the build. Run: node --import tsx bench/main-thread.ts [turns per agent] [threaded|in-thread|both]
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import { builtAgentEntry } from '../src-main/cli/agent-entry'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import { defaultLoadShape, runLoadJob } from '../src-main/core/testing/load-job'
import { record } from './results'

const shape = { ...defaultLoadShape, turns: Number(process.argv[2] ?? defaultLoadShape.turns) }
const modes = (process.argv[3] ?? 'both') === 'both' ? ['threaded', 'in-thread'] : [process.argv[3]!]
const writerWorker = resolve(import.meta.dirname, '../out/main/writer-worker.js')
const resolutionMs = 10
const agentEntry = builtAgentEntry(resolve(import.meta.dirname, '../out/main'))
if (!agentEntry) {
  console.error('bench/main-thread.ts needs the build: run npm run build first')
  process.exit(2)
}

interface LoopDelay {
  p50: number
  p99: number
  max: number
  samples: number
}

/** Delays beyond the sampling interval, in ms. */
function summary(histogram: Pick<IntervalHistogram, 'percentile' | 'max' | 'count'>): LoopDelay {
  const late = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs)
  return { p50: late(histogram.percentile(50)), p99: late(histogram.percentile(99)), max: late(histogram.max), samples: histogram.count }
}

/** An idle Node process that watches its loop from 'start' to 'stop' and replies with the histogram's figures. */
const idleLoopSource = `
const { monitorEventLoopDelay } = require('node:perf_hooks')
const histogram = monitorEventLoopDelay({ resolution: ${resolutionMs} })
process.on('message', (message) => {
  if (message === 'start') return histogram.enable()
  histogram.disable()
  process.send({ p50: histogram.percentile(50), p99: histogram.percentile(99), max: histogram.max, count: histogram.count }, () => process.exit(0))
})
process.send('ready')
`

/** One load job with the loop watched, and an idle process watching its own over the same seconds. */
async function watchedLoad(dir: string, threaded: boolean): Promise<{ engine: LoopDelay; floor: LoopDelay; events: number; ms: number }> {
  const idleFile = join(dir, 'idle-loop.cjs')
  writeFileSync(idleFile, idleLoopSource)
  const idle = fork(idleFile, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((ready) => idle.once('message', ready))
  const idleFigures = new Promise<LoopDelay>((done) =>
    idle.once('message', (figures: { p50: number; p99: number; max: number; count: number }) =>
      done(summary({ percentile: (p) => (p === 50 ? figures.p50 : figures.p99), max: figures.max, count: figures.count })),
    ),
  )
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs })
  const watch = () => {
    idle.send('start')
    histogram.enable()
    return () => {
      histogram.disable()
      idle.send('stop')
    }
  }
  const load = await runLoadJob(join(dir, 'load'), shape, new ForkProcessHost(agentEntry!), {
    watch,
    writerWorker: threaded ? writerWorker : undefined,
  })
  if (load.heard.jobEnd?.data.status !== 'completed') throw new Error(`the load job ended ${String(load.heard.jobEnd?.data.status)}`)
  const events = [...load.heard.byType.values()].reduce((sum, count) => sum + count, 0)
  return { engine: summary(histogram), floor: await idleFigures, events, ms: load.durationMs }
}

const format = (figures: LoopDelay) =>
  `p50 ${figures.p50.toFixed(1)}, p99 ${figures.p99.toFixed(1)}, max ${figures.max.toFixed(1)} (${figures.samples} samples)`

const root = mkdtempSync(join(tmpdir(), 'arbor-bench-main-thread-'))
try {
  console.log(
    `main-thread bench: ${shape.agents} agents at ${shape.concurrency}, ${shape.turns} turns of ${shape.callsPerTurn} calls, node ${process.version}`,
  )
  console.log('loop delay beyond a 10 ms timer, in ms: the engine thread against a bare idle node process over the same seconds')
  for (const mode of modes) {
    const threaded = mode === 'threaded'
    const run = await watchedLoad(mkdtempSync(join(root, `${mode}-`)), threaded)
    console.log(
      `(${threaded ? 'a' : 'b'}) writer ${threaded ? 'on its own thread' : 'on the engine thread'}: ${run.events} events in ${(run.ms / 1000).toFixed(1)} s`,
    )
    console.log(`  engine thread: ${format(run.engine)}`)
    console.log(`  idle process:  ${format(run.floor)}`)
    const name = threaded ? 'main_thread' : 'main_thread.writer_in_thread'
    const goal = (atMost: number) => (threaded ? { atMost, on: 'value' as const } : undefined)
    record({ name: `${name}.loop_delay_p99`, value: run.engine.p99, unit: 'ms', baseline: run.floor.p99, goal: goal(16) })
    record({ name: `${name}.loop_delay_max`, value: run.engine.max, unit: 'ms', baseline: run.floor.max, goal: goal(100) })
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
