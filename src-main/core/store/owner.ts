import { randomUUID } from 'node:crypto'
import os from 'node:os'

/**
 * Several Arbor processes may open one database (`arbor run` with `arbor serve`, `export`, the
 * app), and only the process that runs a job can reach its agents. So each job records its
 * owner: a random token drawn once per process (a pid alone can be reused), the process's pid
 * and host, and `heartbeat_at`, which the owner refreshes every `heartbeatIntervalMs`
 * (store/heartbeat.ts). Another process decides whether the owner is still there:
 *
 * - no owner recorded (a job from before migration 3): gone, as every running job was before;
 * - the owner is this process (same token): live;
 * - same host and the pid is not alive (`kill(pid, 0)` fails with ESRCH), or the pid is this
 *   process's own under another token: gone, at once, without waiting for the heartbeat;
 * - the heartbeat is older than `staleAfterMs`: gone. This is what catches a pid reused by an
 *   unrelated process (after a reboot above all) and an owner on another host, whose pid means
 *   nothing here. A live pid with a fresh heartbeat is the owner.
 *
 * The heartbeat rule is only applied when a process opens the database (`heartbeatCounts`).
 * The periodic sweep of a running process ends jobs whose owner pid is gone, never on a stale
 * heartbeat alone: after a laptop sleeps, every process wakes with a stale heartbeat and the
 * owner may not have ticked yet. A process that was stopped (Ctrl-Z) for longer than
 * `staleAfterMs` may lose its jobs to a process opening the file meanwhile; its later events
 * are refused by its writer (trace-writer.ts) rather than written after the job's end.
 * `kill(pid, 0)` only means something on the same host, and SQLite's WAL mode, which Arbor
 * uses, only works with every connection on one host anyway.
 */
export interface OwnerIdentity {
  token: string
  pid: number
  host: string
}

/** What a job's row says of its owner; all null for a job from before owners were recorded. */
export interface RecordedOwner {
  token: string | null
  pid: number | null
  host: string | null
  heartbeat_at: string | null
}

export const heartbeatIntervalMs = 5_000
/** Three missed heartbeats: long enough for a busy database (busy_timeout is 5 s) to let one through. */
export const staleAfterMs = 15_000

export const newOwnerIdentity = (): OwnerIdentity => ({ token: randomUUID(), pid: process.pid, host: os.hostname() })

/** True when a process with this pid exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  // kill(0) and kill(-n) address process groups: never a job's owner.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export interface LivenessCheck {
  self: OwnerIdentity
  now: Date
  staleAfterMs?: number
  /** Whether a stale heartbeat alone means the owner is gone (see above). Default true. */
  heartbeatCounts?: boolean
  pidAlive?: (pid: number) => boolean
}

export type OwnerVerdict = { live: true } | { live: false; reason: 'unknown' | 'exited' | 'silent' }

export function ownerVerdict(owner: RecordedOwner, check: LivenessCheck): OwnerVerdict {
  if (owner.token === null) return { live: false, reason: 'unknown' }
  if (owner.token === check.self.token) return { live: true }
  if (owner.host === check.self.host && owner.pid !== null) {
    if (owner.pid === check.self.pid || !(check.pidAlive ?? pidAlive)(owner.pid)) return { live: false, reason: 'exited' }
  }
  if (check.heartbeatCounts ?? true) {
    const beat = owner.heartbeat_at === null ? Number.NaN : Date.parse(owner.heartbeat_at)
    // A heartbeat from the future (a clock set back) counts as fresh.
    if (!(check.now.getTime() - beat <= (check.staleAfterMs ?? staleAfterMs))) return { live: false, reason: 'silent' }
  }
  return { live: true }
}
