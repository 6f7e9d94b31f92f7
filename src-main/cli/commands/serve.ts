import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Engine } from '../../core/engine'
import { startServer } from '../../core/serve/server'
import { printable } from '../printable'
import type { CliValues } from '../cli-values'
import { rendererDir } from '../paths'
import { intOption, UsageError } from '../usage-error'
import { cliEngine, stopSignals } from './engine'

/** `arbor serve [DIR]`: DIR opens as the project; without it the UI starts on the start screen. */
export async function runServe(dir: string | undefined, values: CliValues): Promise<number> {
  requireBuiltUi()
  const { engine, dbFile } = cliEngine(
    values.db,
    dir === undefined ? undefined : path.resolve(dir),
    intOption(values['warm-pool'], 'warm-pool'),
    true,
  )
  console.log(dir === undefined ? `Arbor is serving (data: ${dbFile})` : `Arbor is serving ${path.resolve(dir)} (data: ${dbFile})`)
  return serveUntilStopped(engine, values)
}

export function requireBuiltUi(): string {
  const renderer = rendererDir()
  if (!existsSync(path.join(renderer, 'index.html'))) throw new UsageError(`the UI is not built (${renderer}); run npm run build first`)
  return renderer
}

/** Serves the UI for `engine` until SIGINT, SIGTERM or SIGHUP; `job` is selected when the printed URL is opened. */
export async function serveUntilStopped(engine: Engine, values: CliValues, job?: string): Promise<number> {
  const server = await startServer({
    engine,
    rendererDir: requireBuiltUi(),
    port: intOption(values.port, 'port'),
    // A log line may quote what a client sent: printed without its control characters.
    log: (line) => console.error(printable(line)),
  })
  console.log(`Open: ${server.url}${job ? `&job=${encodeURIComponent(job)}` : ''}`)
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve()
    for (const signal of Object.keys(stopSignals)) process.once(signal, stop)
  })
  await server.close()
  await engine.close()
  return 0
}
