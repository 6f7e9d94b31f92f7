import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { createEngine, type Engine } from '../../core/engine'
import { ForkProcessHost } from '../../core/supervisor/fork-host'
import { agentProcessEntry, defaultDbFile, writerWorkerEntry } from '../paths'

/**
 * An engine for a CLI command: agents as Node child processes, the database at --db or the data
 * folder, and `warmPool` processes started ahead (--warm-pool; the engine's default without it).
 * With `writerThread` (serve, whose loop answers a UI) the trace commits on a worker thread, as in
 * the app; a one-shot command commits on its own thread and spares the thread's start.
 * `userDecidesSpawns` false (`arbor run`): nobody can allow a spawn past a job limit, so it is refused.
 */
export function cliEngine(
  dbOption: string | undefined,
  projectDir?: string,
  warmPool?: number,
  writerThread = false,
  userDecidesSpawns = true,
  /** `--max-model-calls N`: this run's cap on concurrent model calls per endpoint, over the Settings value. */
  maxModelCalls?: number,
): { engine: Engine; dbFile: string } {
  const dbFile = path.resolve(dbOption ?? defaultDbFile())
  mkdirSync(path.dirname(dbFile), { recursive: true })
  const processHost = new ForkProcessHost(agentProcessEntry(path.dirname(dbFile)))
  const writerWorker = writerThread ? writerWorkerEntry() : undefined
  const heartbeat = heartbeatFromEnvironment(process.env)
  const engine = createEngine({
    dbFile,
    processHost,
    warmPool,
    projectDir,
    writerWorker,
    userDecidesSpawns,
    ...(heartbeat ? { heartbeat } : {}),
    maxModelCalls,
  })
  return { engine, dbFile }
}

/**
 * `ARBOR_UNRESPONSIVE_AFTER_MS` (at least 200) shortens the 30 s after which a silent agent is
 * unresponsive, its processes then beating five times as often: for the browser tests, which
 * cannot wait half a minute. Unset or invalid: the defaults.
 */
export function heartbeatFromEnvironment(env: NodeJS.ProcessEnv): { intervalMs: number; unresponsiveAfterMs: number } | null {
  const after = Number(env.ARBOR_UNRESPONSIVE_AFTER_MS)
  if (!Number.isInteger(after) || after < 200) return null
  return { intervalMs: Math.floor(after / 5), unresponsiveAfterMs: after }
}

/** The signals that end a CLI command, with the exit code a shell expects after each (128 + N). */
export const stopSignals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const

/**
 * Ctrl-C, SIGTERM or a closed terminal (SIGHUP) ends the agents and every command they started
 * (their processes, not just the CLI) before exiting. A second signal during that exits at once;
 * the agents still end, since each exits when its supervisor's channel closes.
 *
 * With `wrapUp` (`arbor run` on a terminal) the first Ctrl-C asks the job to wrap up instead
 * (true when it did; false when there was nothing to wrap up, and it stops as above), and the
 * next one stops it. SIGTERM and SIGHUP stay immediate: whoever sends them cannot wait.
 */
export function closeOnSignal(engine: Engine, wrapUp?: () => boolean): void {
  for (const [signal, code] of Object.entries(stopSignals)) {
    const close = (): void => {
      console.error('\narbor: stopping agents…')
      void engine.close().finally(() => process.exit(code))
    }
    if (signal !== 'SIGINT' || !wrapUp) {
      process.once(signal, close)
      continue
    }
    process.once(signal, () => {
      if (!wrapUp()) return close()
      console.error('\narbor: wrapping up: each agent finishes and reports within 2 steps; press Ctrl-C again to kill the job')
      process.once(signal, close)
    })
  }
}
