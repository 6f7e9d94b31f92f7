/**
 * Spawn latency: from a parent's `task` call being granted (subagent.start) to the child's
 * first event from its own process, against a bare `child_process.fork` of a script that
 * only says hello. Needs the build (out/main/agent.js). Run: node --import tsx bench/spawn.ts [n]
 */
import { fork } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createEngine, defaultSettings } from '../src-main/core/engine'
import { ForkProcessHost } from '../src-main/core/supervisor/fork-host'
import type { TraceEvent } from '../src-main/core/trace/events'

const count = Number(process.argv[2] ?? 10)
const agentEntry = resolve(import.meta.dirname, '../out/main/agent.js')
if (!existsSync(agentEntry)) {
  console.error('bench/spawn.ts needs the build: run npm run build first')
  process.exit(2)
}
const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-spawn-'))

async function bareFork(): Promise<number[]> {
  const script = join(dir, 'hello.cjs')
  writeFileSync(script, "process.send({ type: 'ready' }); process.on('disconnect', () => process.exit(0))\n")
  const times: number[] = []
  for (let index = 0; index < count; index++) {
    const started = performance.now()
    const child = fork(script, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    await new Promise((done) => child.once('message', done))
    times.push(performance.now() - started)
    child.disconnect()
    await new Promise((done) => child.once('exit', done))
  }
  return times
}

async function arborSpawn(): Promise<number[]> {
  const engine = createEngine({ dbFile: join(dir, 'arbor.db'), processHost: new ForkProcessHost({ entry: agentEntry }), projectDir: dir })
  const firstEventAt = new Map<string, number>()
  const startedAt = new Map<string, number>()
  engine.subscribe(({ events }) => {
    const now = performance.now()
    for (const event of events as TraceEvent[]) {
      if (event.type === 'subagent.start') startedAt.set(String(event.data.child_agent_id), now)
      if (event.type === 'message' && event.agent_id && !firstEventAt.has(event.agent_id)) firstEventAt.set(event.agent_id, now)
    }
  })
  // One child at a time, so each spawn is measured alone.
  const root = Array.from({ length: count }, (_, index) => ({
    tool_calls: [{ name: 'task', arguments: { description: `child ${index}`, subagent_type: 'explore', prompt: 'say done' } }],
  }))
  const done = JSON.stringify({ status: 'completed', summary: 'done', findings: [], evidence: [], unresolved_questions: [] })
  const children = Object.fromEntries(root.map((_, index) => [`child ${index}`, [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: done } }] }]]))
  const jobId = engine.supervisor.startJob({ project: dir, task: 'bench', settings: defaultSettings({ script: { root, children } }) })
  await engine.waitForJob(jobId)
  await engine.close()
  // Commit notifications arrive after a short batching delay; both ends carry it alike.
  return [...startedAt].map(([id, start]) => (firstEventAt.get(id) ?? Number.NaN) - start)
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const bare = median(await bareFork())
const arbor = median(await arborSpawn())
console.log(`spawn latency, median of ${count}:`)
console.log(`  bare fork to first message          ${bare.toFixed(1)} ms   1.00`)
console.log(`  arbor task granted to first event   ${arbor.toFixed(1)} ms   ${(arbor / bare).toFixed(2)}x`)
rmSync(dir, { recursive: true, force: true })
