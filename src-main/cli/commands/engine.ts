import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { createEngine, type Engine } from '../../core/engine'
import { ForkProcessHost } from '../../core/supervisor/fork-host'
import { agentProcessEntry, defaultDbFile } from '../paths'

/** An engine for a CLI command: agents as Node child processes, the database at --db or the data folder. */
export function cliEngine(dbOption: string | undefined, projectDir?: string): { engine: Engine; dbFile: string } {
  const dbFile = path.resolve(dbOption ?? defaultDbFile())
  mkdirSync(path.dirname(dbFile), { recursive: true })
  const engine = createEngine({ dbFile, processHost: new ForkProcessHost(agentProcessEntry()), projectDir })
  return { engine, dbFile }
}

/** Ctrl-C ends the agents (their processes, not just the CLI) before exiting. */
export function closeOnSignal(engine: Engine): void {
  const stop = (): void => {
    console.error('\narbor: stopping agents…')
    void engine.close().finally(() => process.exit(130))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
