/**
 * The agent process started from a V8 code cache (built to out/main/agent-cached.cjs). Where the
 * build's startup snapshot cannot run (Electron's utility processes; a Node other than the one
 * that built it), most of an agent's start is compiling its code. This entry runs agent.cjs, the
 * whole agent in one CommonJS file (the one the snapshot is made of), compiled with the code V8
 * cached for it on an earlier start, so that start skips compiling.
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
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Script } from 'node:vm'
import { codeCacheDirVariable } from './code-cache'

/** The cache file for `source` under this V8, in `dir`. */
const cacheFileFor = (dir: string, source: string): string =>
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

function start(): void {
  const bundle = path.join(__dirname, 'agent.cjs')
  const source = readFileSync(bundle, 'utf8')
  const cacheDir = process.env[codeCacheDirVariable]
  delete process.env[codeCacheDirVariable]
  const cacheFile = cacheDir ? cacheFileFor(cacheDir, source) : null
  const cachedData = cacheFile ? readCache(cacheFile) : undefined
  // agent.cjs as Node would wrap it; it requires only Node's own modules.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData })
  const agentModule = { exports: {} }
  const run = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void
  run(agentModule.exports, createRequire(bundle), agentModule, bundle, path.dirname(bundle))
  // The agent said ready and queued its warm-up: the cache is made after that has run.
  if (cacheFile && (!cachedData || script.cachedDataRejected)) setImmediate(() => writeCache(cacheFile, script))
}

start()
