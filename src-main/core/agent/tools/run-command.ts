import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { Sandbox, WrappedCommand } from './sandbox'

/**
 * Runs a shell command as the leader of its own process group, so that it and everything it
 * starts can be stopped together: on timeout, on abort, and when the command's shell exits
 * (background processes it left behind do not outlive it). SIGTERM first, SIGKILL after a grace
 * time. Output is stdout and stderr interleaved as they arrive, kept up to a limit.
 *
 * With a `sandbox`, the shell runs inside it, and the group's leader is the sandbox's launcher
 * (bwrap); stopping the group stops the sandbox and everything in it. Without one, a process that
 * leaves the group (`setsid`) is not stopped: the price of running without the sandbox.
 */
export interface RunCommandOptions {
  command: string
  cwd: string
  timeoutMs: number
  /** Kept characters of output; the rest is only counted. */
  maxOutputCharacters: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number
  /** Runs the shell inside this OS sandbox; directly when absent. */
  sandbox?: Sandbox
  /** Told of the command's process group: `true` once it started, `false` once it is stopped or gone. */
  onProcessGroup?(pgid: number, running: boolean): void
}

export interface CommandResult {
  /** The shell's exit code; null when a signal ended it. */
  exitCode: number | null
  exitSignal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  /** Processes of the group were still running when the shell exited (and were stopped). */
  stoppedLeftovers: boolean
  output: string
  /** Characters of output dropped after `output`. */
  cut: number
  durationMs: number
}

export const defaultKillGraceMs = 1_000
/** After the shell exits, how long to wait for its output pipes to close. */
const drainMs = 500

const isWindows = process.platform === 'win32'

/** Process groups started here and not yet known to be gone: killed outright if this process exits. */
const liveGroups = new Set<number>()
let exitHookInstalled = false
function trackGroup(pid: number): void {
  liveGroups.add(pid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL')
  })
}

/** Sends a signal to the whole group; false when no process of it is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (isWindows) {
    if (signal === 0) return false
    // No process groups: taskkill /T ends the process tree.
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined)
    return true
  }
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

let cachedShell: { file: string; args: (command: string) => string[] } | undefined
/** bash when there is one, else sh (cmd.exe on Windows without bash). */
export function findShell(): { file: string; args: (command: string) => string[] } {
  if (cachedShell) return cachedShell
  const folders = (process.env.PATH ?? '').split(delimiter).filter(Boolean)
  const names = isWindows ? ['bash.exe'] : ['bash', 'sh']
  for (const name of names) {
    for (const folder of isWindows ? folders : ['/bin', '/usr/bin', ...folders]) {
      const file = join(folder, name)
      if (existsSync(file)) return (cachedShell = { file, args: (command) => ['-c', command] })
    }
  }
  cachedShell = isWindows
    ? { file: process.env.ComSpec ?? 'cmd.exe', args: (command) => ['/d', '/s', '/c', command] }
    : { file: '/bin/sh', args: (command) => ['-c', command] }
  return cachedShell
}

export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const { command, cwd, timeoutMs, maxOutputCharacters, signal } = options
  const graceMs = options.killGraceMs ?? defaultKillGraceMs
  const started = Date.now()
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      resolve({
        exitCode: null,
        exitSignal: null,
        timedOut: false,
        aborted: true,
        stoppedLeftovers: false,
        output: '',
        cut: 0,
        durationMs: 0,
      })
      return
    }
    const shell = findShell()
    const env = options.env ?? process.env
    const argv = [shell.file, ...shell.args(command)]
    const launch: WrappedCommand = options.sandbox ? options.sandbox.wrap(argv, { cwd, env }) : { file: shell.file, args: argv.slice(1) }
    const { leftoversFd } = launch
    const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe']
    if (leftoversFd !== undefined) {
      while (stdio.length < leftoversFd) stdio.push('ignore')
      stdio[leftoversFd] = 'pipe'
    }
    const child = spawn(launch.file, launch.args, {
      cwd,
      env,
      // Its own process group (and session): the whole tree can be signalled at once, and it has no terminal to prompt on.
      detached: !isWindows,
      stdio,
      windowsHide: true,
    })
    const pid = child.pid
    let output = ''
    let cut = 0
    let timedOut = false
    let aborted = false
    let stoppedLeftovers = false
    let exitCode: number | null = null
    let exitSignal: NodeJS.Signals | null = null
    let exited = false
    let settled = false
    const timers: NodeJS.Timeout[] = []

    const take = (text: string): void => {
      if (text === '') return
      const room = maxOutputCharacters - output.length
      if (text.length <= room) {
        output += text
        return
      }
      let kept = Math.max(0, room)
      if (kept > 0 && /[\uD800-\uDBFF]/.test(text.charAt(kept - 1))) kept -= 1
      output += text.slice(0, kept)
      cut += text.length - kept
    }
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')] as const
    child.stdout!.on('data', (chunk: Buffer) => take(decoders[0].write(chunk)))
    child.stderr!.on('data', (chunk: Buffer) => take(decoders[1].write(chunk)))
    // The sandbox stops what the shell left running itself, and says so here.
    let sandboxStoppedLeftovers = false
    if (leftoversFd !== undefined) child.stdio[leftoversFd]!.on('data', () => (sandboxStoppedLeftovers = true))

    /** SIGTERM to the group now, SIGKILL after the grace time if any of it is left. */
    const stopGroup = (): void => {
      if (pid === undefined) return
      if (!signalGroup(pid, 'SIGTERM')) return
      const force = setTimeout(() => {
        signalGroup(pid, 'SIGKILL')
        liveGroups.delete(pid)
      }, graceMs)
      timers.push(force)
    }

    const finish = (): void => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      if (pid !== undefined) {
        // Anything still in the group (it ignored SIGTERM, or the grace has not run out) goes now.
        if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL')
        liveGroups.delete(pid)
        options.onProcessGroup?.(pid, false)
      }
      if (sandboxStoppedLeftovers && !timedOut && !aborted) stoppedLeftovers = true
      take(decoders[0].end())
      take(decoders[1].end())
      resolve({ exitCode, exitSignal, timedOut, aborted, stoppedLeftovers, output, cut, durationMs: Date.now() - started })
    }

    const onAbort = (): void => {
      if (exited) return
      aborted = true
      stopGroup()
    }

    child.on('error', (error) => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      reject(error)
    })
    if (pid === undefined) return // 'error' follows
    trackGroup(pid)
    options.onProcessGroup?.(pid, true)
    signal?.addEventListener('abort', onAbort, { once: true })
    timers.push(
      setTimeout(() => {
        if (exited) return
        timedOut = true
        stopGroup()
      }, timeoutMs),
    )

    child.on('exit', (code, exitedBy) => {
      exited = true
      exitCode = code
      exitSignal = exitedBy
      // Background processes left in the group would keep the pipes open (and outlive the agent): stop them.
      if (!timedOut && !aborted && signalGroup(pid, 0)) {
        stoppedLeftovers = true
        stopGroup()
      }
      // Wait for the pipes to drain; a process that left the group could hold them open for ever.
      const drain = setTimeout(
        () => {
          for (const stream of child.stdio) stream?.destroy()
          finish()
        },
        stoppedLeftovers || timedOut || aborted ? graceMs + drainMs : drainMs,
      )
      timers.push(drain)
    })
    child.on('close', finish)
  })
}
