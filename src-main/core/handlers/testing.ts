import path from 'node:path'
import { createDispatcher } from '../api/dispatcher'
import { createEngine } from '../engine'
import type { Environment } from '../providers/connection'
import type { ProcessHost } from '../supervisor/process-host'
import { FileKeyStore } from '../settings/key-store'
import { recordEvents, testAgentHost } from '../supervisor/testing'

export interface HandlerEngineOptions {
  /** Where the database and the key store go (the key store beside the database). */
  dbFile: string
  project?: string
  env?: Environment
  warmPool?: number
  /** Agent processes from the TypeScript source by default (load-job.ts bundledAgentHost starts faster). */
  processHost?: ProcessHost
  /** False: nobody can allow a spawn held by a job limit, as under `arbor run` (EngineOptions.userDecidesSpawns). */
  userDecidesSpawns?: boolean
  /** Agents' heartbeat interval and unresponsive threshold (EngineOptions.heartbeat), short in tests. */
  heartbeat?: { intervalMs?: number; unresponsiveAfterMs?: number }
  /** How long an MCP tool call may take (EngineOptions.mcpCallTimeoutMs). */
  mcpCallTimeoutMs?: number
  /** How long `waitFor` waits by default. */
  waitMs?: number
  /** Where the engine's close is queued (useCleanups' list): it is closed after the test. */
  cleanups: Array<() => Promise<void> | void>
}

/**
 * A real engine as the handler tests drive it: a SQLite file, agent processes forked from the
 * source, its own key store and no environment keys; every stored event recorded, and requests
 * dispatched as IPC and the WebSocket dispatch them (the zod parse first).
 */
export function handlerEngine(options: HandlerEngineOptions) {
  const engine = createEngine({
    dbFile: options.dbFile,
    processHost: options.processHost ?? testAgentHost(),
    projectDir: options.project,
    killGraceMs: 1000,
    keys: new FileKeyStore(path.join(path.dirname(options.dbFile), 'keys.json')),
    env: options.env ?? {},
    ...(options.warmPool !== undefined ? { warmPool: options.warmPool } : {}),
    ...(options.userDecidesSpawns !== undefined ? { userDecidesSpawns: options.userDecidesSpawns } : {}),
    ...(options.heartbeat ? { heartbeat: options.heartbeat } : {}),
    ...(options.mcpCallTimeoutMs !== undefined ? { mcpCallTimeoutMs: options.mcpCallTimeoutMs } : {}),
  })
  options.cleanups.push(() => engine.close())
  return { engine, dispatch: createDispatcher(engine.handlers), ...recordEvents(engine, options.waitMs ?? 20_000) }
}
