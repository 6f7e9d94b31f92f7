import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ForkHostOptions } from '../core/supervisor/fork-host'

/**
 * Where things are, whether the CLI runs built (out/main/cli.js, beside out/main/agent.js and
 * out/renderer) or from source with tsx (src-main/cli/main.ts, in tests and development).
 */
const here = path.dirname(fileURLToPath(import.meta.url))
const fromSource = import.meta.url.endsWith('.ts')
// src-main/cli or out/main: the repository root is two levels up either way.
const repoRoot = path.resolve(here, '../..')

export function agentProcessEntry(): ForkHostOptions {
  const built = path.join(repoRoot, 'out/main/agent.js')
  if (!fromSource && existsSync(built)) return { entry: built }
  return { entry: path.join(repoRoot, 'src-main/core/agent/main.ts'), execArgv: ['--import', 'tsx'] }
}

export const rendererDir = (): string => path.join(repoRoot, 'out/renderer')

/** The data folder: $ARBOR_DATA_DIR, else $XDG_DATA_HOME/arbor, else ~/.local/share/arbor. */
export function dataDir(): string {
  if (process.env.ARBOR_DATA_DIR) return path.resolve(process.env.ARBOR_DATA_DIR)
  const base = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share')
  return path.join(base, 'arbor')
}

export const defaultDbFile = (): string => path.join(dataDir(), 'arbor.db')
