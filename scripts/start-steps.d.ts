// Types for start-steps.js (plain JavaScript, run by Node without a build step).

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Collect stdout and stderr into `output` instead of showing them. */
  capture?: boolean
  /** End the command (SIGTERM, then SIGKILL) after this long. */
  timeoutMs?: number
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  timeoutMs?: number
  output: string
  /** Set when the command could not be started at all. */
  error?: string
}

export type Runner = (command: string, args: string[], options: RunOptions) => Promise<RunResult>

export interface StartOptions {
  root: string
  argv?: readonly string[]
  cwd?: string
  env?: NodeJS.ProcessEnv
  exists?: (file: string) => boolean
  readText?: (file: string) => string | undefined
  run?: Runner
  log?: (line: string) => void
  fail?: (line: string) => void
  nodePath?: string
  dryRun?: boolean
}

export const ELECTRON_DOWNLOAD_TIMEOUT_MS: number
export const SQLITE_BUILD_TIMEOUT_MS: number
export const SQLITE_BINDING: string
export const messages: {
  electronMissing(reason: string): string
  sqliteMissing(reason: string): string
  buildFailed(reason: string): string
}

export function readTextFile(file: string): string | undefined
export function findElectronBinary(options: {
  root: string
  env: NodeJS.ProcessEnv
  exists: (file: string) => boolean
  readText: (file: string) => string | undefined
}): string | undefined
export function findSqliteBinding(options: { root: string; env: NodeJS.ProcessEnv; exists: (file: string) => boolean }): string | undefined
export function appArguments(argv: readonly string[], cwd: string): string[]
export function shortReason(output: string | undefined, fallback: string): string
export function runStart(options: StartOptions): Promise<number>
export function runCommand(command: string, args: readonly string[], options?: RunOptions): Promise<RunResult>
