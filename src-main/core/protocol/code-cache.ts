import path from 'node:path'

/**
 * The environment variable that tells an agent started from out/main/agent-cached.cjs where its
 * V8 code cache lives (code-cache-entry.ts); the agent removes it before it runs anything.
 */
export const codeCacheDirVariable = 'ARBOR_AGENT_CODE_CACHE_DIR'

/** The code cache's folder inside Arbor's data folder, which agents' commands cannot see or write. */
export const codeCacheDir = (dataFolder: string): string => path.join(dataFolder, 'agent-code-cache')

/**
 * What agent-cached.cjs compiles: agent.cjs wrapped as Node wraps a CommonJS module, written by
 * the build beside it. Wrapping at start instead joined two strings of the whole bundle, copies
 * an idle agent still held (measured with the rest of code-cache-entry.ts's care: 52.4 MB idle
 * before, 51.3 MB after, bench/spawn.ts).
 */
export const codeCacheSourceFile = 'agent-wrapped.js'

/** `source` as Node wraps a module; it adds no line before the first, so positions stay true. */
export const wrapCommonJs = (source: string): string => `(function (exports, require, module, __filename, __dirname) {${source}\n})`
