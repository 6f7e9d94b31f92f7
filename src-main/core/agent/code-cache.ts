import path from 'node:path'

/**
 * The environment variable that tells an agent started from out/main/agent-cached.cjs where its
 * V8 code cache lives (code-cache-entry.ts); the agent removes it before it runs anything.
 */
export const codeCacheDirVariable = 'ARBOR_AGENT_CODE_CACHE_DIR'

/** The code cache's folder inside Arbor's data folder, which agents' commands cannot see or write. */
export const codeCacheDir = (dataFolder: string): string => path.join(dataFolder, 'agent-code-cache')
