import type { SqliteDatabase } from './database'
import { endInterruptedJobs } from './interrupted'
import { heartbeatIntervalMs } from './owner'
import type { TraceLog } from './trace-writer'

export interface HeartbeatOptions {
  intervalMs?: number
  /** Receives a tick's errors (a database busy past its timeout); the next tick tries again. Default: console.error. */
  onError?: (error: unknown) => void
}

export interface Heartbeat {
  /** One tick now: what the interval does. */
  beat(): void
  stop(): void
}

/**
 * Tells other processes that this one still runs its jobs (store/owner.ts): every `intervalMs`
 * the running jobs of the writer's owner get a fresh `heartbeat_at`. The same tick ends jobs
 * whose owner has exited since, so a `serve` next to an `arbor run` that was killed shows the
 * job interrupted without a restart. Owned by whatever owns the writer; the interval is unref'd
 * and must be stopped before the writer closes.
 */
export function startHeartbeat(db: SqliteDatabase, writer: TraceLog, options: HeartbeatOptions = {}): Heartbeat {
  const owner = writer.owner
  if (!owner) throw new Error('startHeartbeat needs a TraceWriter created with an owner')
  const onError = options.onError ?? ((error) => console.error('[arbor store] heartbeat:', error))
  const beat = (): void => {
    try {
      // On the writer's connection: from this thread it would wait for the writer thread's lock.
      writer.heartbeat(new Date())
      // Commits what a failed commit left queued, such as a previous tick's ends of a job taken over.
      writer.flush()
      // A stale heartbeat alone does not count here: after a sleep, the owner may not have ticked yet.
      endInterruptedJobs(db, writer, { heartbeatCounts: false })
    } catch (error) {
      onError(error)
    }
  }
  const timer = setInterval(beat, options.intervalMs ?? heartbeatIntervalMs)
  timer.unref()
  return { beat, stop: () => clearInterval(timer) }
}
