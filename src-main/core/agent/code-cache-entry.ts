/**
 * The agent process started from a V8 code cache (built to out/main/agent-cached.cjs). Where the
 * build's startup snapshot cannot run (Electron's utility processes; a Node other than the one
 * that built it), most of an agent's start is compiling its code. This entry runs agent.cjs, the
 * whole agent in one CommonJS file (the one the snapshot is made of; read from agent-wrapped.js,
 * the build's copy already wrapped as a module), compiled with the code V8 cached for it on an
 * earlier start, so that start skips compiling.
 *
 * The cache lives in the folder `ARBOR_AGENT_CODE_CACHE_DIR` names (the host sets it to Arbor's
 * data folder, which agents' commands cannot see or write: the cache is code), one file per
 * agent.cjs content and V8 version. A process that finds no cache, or one V8 rejects (another
 * build, another V8, a damaged file), runs agent.cjs compiled from source and, once it has said
 * ready and warmed up, writes the cache for the next ones: to a file of its own, then renamed
 * over, so agents starting together never read half a file. Without the variable it runs from
 * source and caches nothing. Nothing here reaches an agent's commands: the variable is removed
 * from the environment before the agent runs.
 */
import { isAscii } from 'node:buffer'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Script } from 'node:vm'
import { codeCacheDirVariable, codeCacheSourceFile } from '../protocol/code-cache'

/** The cache file for the bundle `source` under this V8, in `dir`. */
const cacheFileFor = (dir: string, source: Buffer): string =>
  path.join(dir, `agent-${createHash('sha256').update(process.versions.v8).update('\0').update(source).digest('hex').slice(0, 32)}.cache`)

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

/** Writes the script's code cache as it is now (what has run so far is compiled), atomically. */
function writeCache(file: string, script: Script): void {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    writeFileSync(temporary, script.createCachedData(), { mode: 0o600 })
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    process.stderr.write(`arbor agent: the code cache could not be written (${error instanceof Error ? error.message : String(error)})\n`)
  }
}

/**
 * agent.cjs compiled, from the cache when there is one V8 accepts. Done in a frame of its own: the
 * file and cache bytes it reads (about 0.9 MB) are then garbage before the agent runs, not held
 * by a frame that lasts as long as its start (measured: 0.8 MB more idle memory, bench/spawn.ts).
 */
function compile(bundle: string): { script: Script; cacheFile: string | null; fromCache: boolean } {
  // agent.cjs as Node would wrap it, written so by the build; it requires only Node's own modules.
  const bytes = readFileSync(path.join(__dirname, codeCacheSourceFile))
  const cacheDir = process.env[codeCacheDirVariable]
  delete process.env[codeCacheDirVariable]
  const cacheFile = cacheDir ? cacheFileFor(cacheDir, bytes) : null
  const cachedData = cacheFile ? readCache(cacheFile) : undefined
  // esbuild writes ASCII. Decoded as Latin-1 (the same string for ASCII), the idle agent holds
  // 0.5 MB less than decoded as UTF-8.
  const script = new Script(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'), { filename: bundle, cachedData })
  return { script, cacheFile, fromCache: cachedData !== undefined && !script.cachedDataRejected }
}

function start(): void {
  const bundle = path.join(__dirname, 'agent.cjs')
  const { script, cacheFile, fromCache } = compile(bundle)
  const agentModule = { exports: {} }
  const run = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: object,
    filename: string,
    dirname: string,
  ) => void
  run(agentModule.exports, createRequire(bundle), agentModule, bundle, path.dirname(bundle))
  // The agent said ready and queued its warm-up: the cache is made after that has run.
  if (cacheFile && !fromCache) setImmediate(() => writeCache(cacheFile, script))
}

start()
