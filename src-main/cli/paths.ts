import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { builtAgentEntry } from './agent-entry'
import type { ForkHostOptions } from '../core/supervisor/fork-host'

/**
 * Where things are, whether the CLI runs built (out/main/cli.js, beside out/main/agent.js and
 * out/renderer) or from source with tsx (src-main/cli/main.ts, in tests and development).
 */
const here = path.dirname(fileURLToPath(import.meta.url))
const fromSource = import.meta.url.endsWith('.ts')
// src-main/cli, or out/main/chunks: the build puts this file in a chunk that the commands share,
// loaded only when one runs. The repository root is the nearest folder above with a package.json.
const repoRoot = packageRoot(here)

function packageRoot(from: string): string {
  for (let dir = from; path.dirname(dir) !== dir; dir = path.dirname(dir)) if (existsSync(path.join(dir, 'package.json'))) return dir
  return path.resolve(from, '../..')
}

/**
 * How agent processes start: from the build (its startup snapshot when this Node made one, else
 * its code cache in `dataFolder`, see builtAgentEntry), else from source.
 */
export function agentProcessEntry(dataFolder: string): ForkHostOptions {
  const built = fromSource ? undefined : builtAgentEntry(path.join(repoRoot, 'out/main'), dataFolder)
  if (built) return built
  return { entry: path.join(repoRoot, 'src-main/core/agent/main.ts'), execArgv: ['--import', 'tsx'] }
}

/** The trace writer's thread entry (core/store/writer-worker.ts): built beside cli.js, or the source run with tsx. */
export const writerWorkerEntry = (): string =>
  fromSource ? path.join(repoRoot, 'src-main/core/store/writer-worker.ts') : path.join(repoRoot, 'out/main/writer-worker.js')

export const rendererDir = (): string => path.join(repoRoot, 'out/renderer')

/** The data folder: $ARBOR_DATA_DIR, else $XDG_DATA_HOME/arbor, else ~/.local/share/arbor. */
export function dataDir(): string {
  if (process.env.ARBOR_DATA_DIR) return path.resolve(process.env.ARBOR_DATA_DIR)
  const base = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share')
  return path.join(base, 'arbor')
}

export const defaultDbFile = (): string => path.join(dataDir(), 'arbor.db')
