import { existsSync } from 'node:fs'
import path from 'node:path'
import { codeCacheDir, codeCacheDirVariable, codeCacheSourceFile } from '../core/protocol/code-cache'
import type { ForkHostOptions } from '../core/supervisor/fork-host'

/**
 * The name of the agent process's startup snapshot for this Node (made at build time beside
 * out/main/agent.js, see electron.vite.config.ts). A snapshot starts only on the Node version,
 * platform and architecture that made it, so the name carries them: another Node finds none and
 * starts another way (builtAgentEntry).
 */
export const agentSnapshotFile = (): string => `agent-${process.version}-${process.platform}-${process.arch}.blob`

/**
 * How a forked agent starts from the build in `outDir` (out/main): from the startup snapshot this
 * Node made; else, given Arbor's data folder, from agent-cached.cjs with its V8 code cache there
 * (src-main/core/agent/code-cache-entry.ts); else from agent.js. Undefined when there is no build.
 */
export function builtAgentEntry(outDir: string, dataFolder?: string): ForkHostOptions | undefined {
  const bundle = path.join(outDir, 'agent.js')
  if (!existsSync(bundle)) return undefined
  const snapshot = path.join(outDir, agentSnapshotFile())
  const oneFile = path.join(outDir, 'agent.cjs')
  // The entry is only process.argv[1] then: the snapshot holds the code the process runs.
  if (existsSync(snapshot) && existsSync(oneFile)) return { entry: oneFile, execArgv: ['--snapshot-blob', snapshot] }
  const cached = path.join(outDir, 'agent-cached.cjs')
  if (dataFolder && existsSync(cached) && existsSync(path.join(outDir, codeCacheSourceFile)))
    return { entry: cached, env: { [codeCacheDirVariable]: codeCacheDir(dataFolder) } }
  return { entry: bundle }
}
