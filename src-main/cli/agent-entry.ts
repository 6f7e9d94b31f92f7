import { existsSync } from 'node:fs'
import path from 'node:path'
import type { ForkHostOptions } from '../core/supervisor/fork-host'

/**
 * The name of the agent process's startup snapshot for this Node (made at build time beside
 * out/main/agent.js, see electron.vite.config.ts). A snapshot starts only on the Node version,
 * platform and architecture that made it, so the name carries them: another Node finds none and
 * starts agent.js instead.
 */
export const agentSnapshotFile = (): string => `agent-${process.version}-${process.platform}-${process.arch}.blob`

/**
 * How a forked agent starts from the build in `outDir` (out/main): from the startup snapshot this
 * Node made, else from agent.js; undefined when there is no build.
 */
export function builtAgentEntry(outDir: string): ForkHostOptions | undefined {
  const bundle = path.join(outDir, 'agent.js')
  if (!existsSync(bundle)) return undefined
  const snapshot = path.join(outDir, agentSnapshotFile())
  const snapshotEntry = path.join(outDir, 'agent-snapshot.cjs')
  // The entry is only process.argv[1] then: the snapshot holds the code the process runs.
  if (existsSync(snapshot) && existsSync(snapshotEntry)) return { entry: snapshotEntry, execArgv: ['--snapshot-blob', snapshot] }
  return { entry: bundle }
}
