import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEngine, defaultSettings, type Engine } from '../engine'
import type { TraceEvent } from '../trace/events'
import type { JobSettings, ScriptPlan, ScriptTurn } from '../trace/model'
import { ForkProcessHost } from './fork-host'

/** Test helpers: a real engine (SQLite file, forked agent processes) on a small real project. */
const agentSource = fileURLToPath(new URL('../agent/main.ts', import.meta.url))

export interface TestRig {
  engine: Engine
  project: string
  events: TraceEvent[]
  /** Resolves with the first stored event matching `predicate` (already stored or still to come). */
  waitFor(predicate: (event: TraceEvent) => boolean, timeoutMs?: number): Promise<TraceEvent>
  start(script: ScriptPlan, settings?: Partial<JobSettings>, options?: { spawnPaused?: boolean }): string
}

/** Agent processes run from the TypeScript source, as in every engine test. */
export const testAgentHost = (): ForkProcessHost => new ForkProcessHost({ entry: agentSource, execArgv: ['--import', 'tsx'] })

/** Every event the engine stores, and a wait for the first one matching (already stored or still to come). */
export function recordEvents(engine: Engine, defaultTimeoutMs = 20_000): Pick<TestRig, 'events' | 'waitFor'> {
  const events: TraceEvent[] = []
  const waiters = new Set<{ predicate: (event: TraceEvent) => boolean; resolve: (event: TraceEvent) => void }>()
  engine.subscribe(({ events: batch }) => {
    for (const event of batch) {
      events.push(event)
      for (const waiter of waiters) {
        if (!waiter.predicate(event)) continue
        waiters.delete(waiter)
        waiter.resolve(event)
      }
    }
  })
  return {
    events,
    waitFor(predicate, timeoutMs = defaultTimeoutMs) {
      const seen = events.find(predicate)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve }
        waiters.add(waiter)
        setTimeout(() => {
          if (!waiters.delete(waiter)) return
          reject(new Error(`timed out waiting for an event; saw: ${events.map((event) => event.type).join(', ')}`))
        }, timeoutMs).unref()
      })
    },
  }
}

/** `heartbeat`: the agents' heartbeat interval and unresponsive threshold (EngineOptions.heartbeat), short for a test that stops a process. */
export function createTestRig(options: { heartbeat?: { intervalMs?: number; unresponsiveAfterMs?: number } } = {}): TestRig {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-supervisor-'))
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Fixture project\n\nA small project for supervisor tests.\n')
  writeFileSync(path.join(project, 'index.js'), 'export const answer = 42\n')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    projectDir: project,
    killGraceMs: 1000,
    // Agents start on demand: a pool's idle processes would only cost the test machine CPU (warm-pool.test.ts covers the pool).
    warmPool: 0,
    ...(options.heartbeat ? { heartbeat: options.heartbeat } : {}),
  })
  return {
    engine,
    project,
    ...recordEvents(engine),
    start(script, settings = {}, options = {}) {
      return engine.supervisor.startJob({
        project,
        task: 'test job',
        settings: defaultSettings({ ...settings, script }),
        spawnPaused: options.spawnPaused,
      })
    },
  }
}

export const taskCall = (description: string, subagentType = 'explore'): NonNullable<ScriptTurn['tool_calls']>[number] => ({
  name: 'task',
  arguments: { description, subagent_type: subagentType, prompt: `Do: ${description}` },
})

export const complete = (result: string, delayMs = 0): ScriptTurn => ({
  delay_ms: delayMs,
  tool_calls: [{ name: 'attempt_completion', arguments: { result } }],
})

export const exploreResult = (summary: string): string =>
  JSON.stringify({ status: 'completed', summary, findings: [], evidence: [], unresolved_questions: [] })

export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
