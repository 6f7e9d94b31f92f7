import { existsSync } from 'node:fs'
import path from 'node:path'
import { startServer } from '../../core/serve/server'
import type { CliValues } from '../main'
import { rendererDir } from '../paths'
import { intOption, UsageError } from '../usage-error'
import { cliEngine } from './engine'

export async function runServe(dir: string, values: CliValues): Promise<number> {
  const renderer = rendererDir()
  if (!existsSync(path.join(renderer, 'index.html'))) throw new UsageError(`the UI is not built (${renderer}); run npm run build first`)
  const { engine, dbFile } = cliEngine(values.db, path.resolve(dir))
  const server = await startServer({
    engine,
    rendererDir: renderer,
    port: intOption(values.port, 'port'),
    log: (line) => console.error(line),
  })
  console.log(`Arbor is serving ${path.resolve(dir)} (data: ${dbFile})`)
  console.log(`Open: ${server.url}`)
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await server.close()
  await engine.close()
  return 0
}
