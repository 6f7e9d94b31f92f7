/**
 * What a fault costs (issue 21): the time from an agent process's death to its new process making
 * its first model call, for a crash in the middle of a tool call and in the middle of a model call,
 * and the tokens the restart repeats. The job is the real engine's (SQLite, forked agent
 * processes, a warm pool of 2), its model the scripted one.
 *
 * Baseline, measured in the same run: a bare forked `node` that starts and says hello (the least a
 * new process costs). The restart takes its process from the warm pool, so it can beat that floor;
 * what it adds is rebuilding the history from the trace and the new process's first call.
 * Needs the build (npm run build).
 * Run: node --import tsx bench/faults.ts [crashes]
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
import type { TraceEvent } from '../src-main/core/trace/events'
import type { ScriptTurn } from '../src-main/core/trace/model'
import { record } from './results'

const crashes = Number(process.argv[2] ?? 8)
const agentEntry = builtAgentEntry(resolve(import.meta.dirname, '../out/main'))
if (!agentEntry) {
  console.error('bench/faults.ts needs the build: run npm run build first')
  process.exit(2)
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-faults-'))
const project = join(dir, 'project')
mkdirSync(project)
writeFileSync(join(project, 'README.md'), '# Bench project\n')

/** A bare `node` forked until it says hello, in ms. */
async function bareProcessStarts(count: number): Promise<number[]> {
  const hello = join(dir, 'hello.cjs')
  writeFileSync(hello, "process.send('hello', () => process.exit(0))\n")
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    const child = fork(hello, [], { stdio: 'ignore' })
    await new Promise<void>((done) => child.once('message', () => done()))
    times.push(performance.now() - started)
    await new Promise<void>((done) => (child.exitCode !== null ? done() : child.once('exit', () => done())))
  }
  return times
}

const engine = createEngine({ dbFile: join(dir, 'arbor.db'), processHost: new ForkProcessHost(agentEntry), projectDir: project })
const events: TraceEvent[] = []
engine.subscribe((notification) => {
  if ('events' in notification) events.push(...notification.events)
})

async function until(found: () => TraceEvent | undefined): Promise<TraceEvent> {
  for (;;) {
    const event = found()
    if (event) return event
    await sleep(1)
  }
}

/**
 * One job whose root is killed while `when` holds: in its `sleep` command (tool), or while its
 * second model call streams slowly (model). Returns ms from the kill to the agent.restart event
 * and to the first model request of the new process, and the input tokens the restart sent again.
 */
async function crashOnce(when: 'tool' | 'model'): Promise<{ restartMs: number; firstCallMs: number; repeatedTokens: number }> {
  const first: ScriptTurn = { tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }
  const script: ScriptTurn[] =
    when === 'tool'
      ? [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] }, { text: 'done after the crash' }]
      : [first, { text: 'a slow answer', delay_ms: 30_000 }, { text: 'done after the crash' }]
  const jobId = engine.supervisor.startJob({
    project,
    task: 'fault bench',
    settings: defaultSettings({ script: { root: script, children: {} } }),
  })
  const rootId = engine.supervisor.rootAgentId(jobId)!
  const mine = (type: string) => () => events.find((event) => event.job_id === jobId && event.agent_id === rootId && event.type === type)
  if (when === 'tool') await until(mine('tool.call'))
  else await until(mine('llm.call'))
  // In a model call: give the second call time to start streaming in the supervisor.
  if (when === 'model') await sleep(50)
  const seen = events.length
  const killed = performance.now()
  process.kill(engine.supervisor.pidOf(rootId)!, 'SIGKILL')
  await until(mine('agent.restart'))
  const restartMs = performance.now() - killed
  // The first call of the new process: its llm.call (the scripted model answers at once), less
  // the call's own duration, is when it asked.
  const isAnswer = (event: TraceEvent): event is Extract<TraceEvent, { type: 'llm.call' }> =>
    event.job_id === jobId && event.type === 'llm.call' && !('aborted' in event.data)
  const call = (await until(() => events.slice(seen).find(isAnswer))) as Extract<TraceEvent, { type: 'llm.call' }>
  const firstCallMs = performance.now() - killed - call.data.duration_ms
  await engine.waitForJob(jobId)
  // A call cut short reports no usage: what is repeated is the input of the call made again.
  const repeatedTokens = when === 'model' ? call.data.usage.input_tokens : 0
  return { restartMs, firstCallMs, repeatedTokens }
}

try {
  await crashOnce('tool') // warms the engine and the pool
  const results: Record<'tool' | 'model', { restart: number[]; firstCall: number[]; repeated: number[] }> = {
    tool: { restart: [], firstCall: [], repeated: [] },
    model: { restart: [], firstCall: [], repeated: [] },
  }
  for (let i = 0; i < crashes; i++) {
    for (const when of ['tool', 'model'] as const) {
      const run = await crashOnce(when)
      results[when].restart.push(run.restartMs)
      results[when].firstCall.push(run.firstCallMs)
      results[when].repeated.push(run.repeatedTokens)
    }
  }
  const bare = median(await bareProcessStarts(10))
  for (const when of ['tool', 'model'] as const) {
    const { restart, firstCall, repeated } = results[when]
    console.log(
      `crash mid-${when} (${restart.length}×): kill → agent.restart ${median(restart).toFixed(1)} ms, → first model call of the new process ` +
        `${median(firstCall).toFixed(1)} ms; tokens sent again ${median(repeated)}; a bare node process starts in ${bare.toFixed(1)} ms`,
    )
    record({ name: `faults.restart_mid_${when}_ms`, value: median(firstCall), unit: 'ms', baseline: bare })
  }
} finally {
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
}
