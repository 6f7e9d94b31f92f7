import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { createEngine, type Engine } from '../../core/engine'
import { ForkProcessHost } from '../../core/supervisor/fork-host'
import { agentProcessEntry, defaultDbFile } from '../paths'

/**
 * An engine for a CLI command: agents as Node child processes, the database at --db or the data
 * folder, and `warmPool` processes started ahead (--warm-pool; the engine's default without it).
 */
export function cliEngine(dbOption: string | undefined, projectDir?: string, warmPool?: number): { engine: Engine; dbFile: string } {
  const dbFile = path.resolve(dbOption ?? defaultDbFile())
  mkdirSync(path.dirname(dbFile), { recursive: true })
  const engine = createEngine({ dbFile, processHost: new ForkProcessHost(agentProcessEntry(path.dirname(dbFile))), warmPool, projectDir })
  return { engine, dbFile }
}

/** The signals that end a CLI command, with the exit code a shell expects after each (128 + N). */
export const stopSignals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const

/**
 * Ctrl-C, SIGTERM or a closed terminal (SIGHUP) ends the agents and every command they started
 * (their processes, not just the CLI) before exiting. A second signal during that exits at once;
 * the agents still end, since each exits when its supervisor's channel closes.
 */
export function closeOnSignal(engine: Engine): void {
  for (const [signal, code] of Object.entries(stopSignals)) {
    process.once(signal, () => {
      console.error('\narbor: stopping agents…')
      void engine.close().finally(() => process.exit(code))
    })
  }
}
