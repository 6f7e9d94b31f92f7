import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'

/**
 * The machine's processes as `ps` lists them, for tests that prove nothing outlives Arbor: agents,
 * `bash` commands and what those started. A marker is a string unique to one test that its
 * commands carry in their arguments (see `markedSleep`), so every layer of a command (sandbox,
 * shell, the command itself) can be found, wherever it was reparented to.
 */
export interface ProcessInfo {
  pid: number
  ppid: number
  pgid: number
  args: string
}

export function listProcesses(): ProcessInfo[] {
  const text = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
  return text
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, pid, ppid, pgid, args]) => ({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), args: args! }))
}

/** Every process whose command line holds `marker`, but the `ps` that looked. */
export const processesWith = (marker: string): ProcessInfo[] =>
  listProcesses().filter((info) => info.args.includes(marker) && info.pid !== process.pid)

/** `pid` and everything started under it that is still its descendant now (before it dies: after, they are reparented). */
export function descendantsOf(pid: number): ProcessInfo[] {
  const all = listProcesses()
  const found: ProcessInfo[] = []
  const parents = new Set([pid])
  for (let grew = true; grew;) {
    grew = false
    for (const info of all) {
      if (parents.has(info.ppid) && !parents.has(info.pid)) {
        parents.add(info.pid)
        found.push(info)
        grew = true
      }
    }
  }
  return found
}

/** A marker that appears in no other process: a `sleep` duration no one else would type. */
export function newMarker(): { marker: string; sleep: string } {
  const digits = String(parseInt(randomBytes(4).toString('hex'), 16)).padStart(10, '0')
  const marker = `600.${digits}`
  // The duration is the marker: the sandbox, the shell and `sleep` itself all carry it in their arguments.
  return { marker, sleep: `sleep ${marker}` }
}

/** Resolves once `predicate` holds, checking every 50 ms; rejects after `timeoutMs` with what `describe` says. */
export async function waitUntil(
  predicate: () => boolean,
  options: { timeoutMs?: number; what: string; describe?: () => string },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000)
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting until ${options.what}${options.describe ? `: ${options.describe()}` : ''}`)
    await delay(50)
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Which of `pids` still run (a zombie not yet reaped counts as gone: it runs nothing). */
export function stillRunning(pids: readonly number[]): ProcessInfo[] {
  const listed = new Map(listProcesses().map((info) => [info.pid, info]))
  return pids.filter((pid) => alive(pid) && listed.has(pid) && !/<defunct>/.test(listed.get(pid)!.args)).map((pid) => listed.get(pid)!)
}

/** Waits until nothing with `marker` runs and none of `pids` does; the error lists what is left. */
export async function waitForNoneLeft(marker: string, pids: readonly number[] = [], timeoutMs = 10_000): Promise<void> {
  const left = (): ProcessInfo[] => [...processesWith(marker).filter((info) => !/<defunct>/.test(info.args)), ...stillRunning(pids)]
  await waitUntil(() => left().length === 0, {
    timeoutMs,
    what: `no process with ${marker} is left`,
    describe: () =>
      left()
        .map((info) => `${info.pid} (pgid ${info.pgid}): ${info.args.slice(0, 200)}`)
        .join('\n'),
  })
}

/** Kills what a failed test left behind, by process group, so one failure does not leak into the next test. */
export function killLeftovers(marker: string, pids: readonly number[] = []): void {
  const ownGroup = listProcesses().find((info) => info.pid === process.pid)?.pgid
  for (const info of [...processesWith(marker), ...stillRunning(pids)]) {
    for (const target of info.pgid === ownGroup ? [info.pid] : [-info.pgid, info.pid]) {
      try {
        process.kill(target, 'SIGKILL')
      } catch {
        // Gone already.
      }
    }
  }
}
