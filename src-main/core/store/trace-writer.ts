import type { Statement } from 'better-sqlite3'
import type { NewTraceEvent, TraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import { AppendGate } from './append-gate'
import type { SqliteDatabase } from './database'
import { StoreError } from './errors'
import { putFileContent } from './file-contents'
import type { CheckedEvent } from './event-check'
import { jobOwnersFor, ownerRow, type JobOwners } from './job-owners'
import type { OwnerIdentity } from './owner'
import { BatchProjector } from './projector'
import { jobColumns, jobOwnerColumns, jobToRow, type JobOwnerRow, type JobRow } from './rows'

export interface TraceWriterOptions {
  /** Flush as soon as this many events are queued. Default 1000. */
  maxBatch?: number
  /** Flush this long after the first queued event; 0 means setImmediate. Default 10 ms. */
  flushDelayMs?: number
  /** Receives errors of automatic flushes and of commit listeners. Default: console.error. */
  onError?: (error: unknown) => void
  /**
   * This process, recorded as the owner of every job it creates (store/owner.ts). With an owner,
   * the writer also refuses events of a job another process runs. Default: none (jobs are
   * created without an owner, as before owners were recorded).
   */
  owner?: OwnerIdentity
}

export type CommitListener = (events: TraceEvent[]) => void

/**
 * What the engine, the heartbeat and the handlers use of the trace's writer: a TraceWriter,
 * committing on the caller's thread, or a ThreadedTraceWriter (writer-thread.ts), which commits
 * on a worker thread of its own and keeps the same contract.
 */
export interface ReopenOptions {
  interrupted?: boolean
}

export interface TraceLog {
  readonly owner: OwnerIdentity | null
  createJob(job: Job): void
  /**
   * A job that ended runs again in this process (a follow-up): it is this process's from now on.
   * With `interrupted`, only a job whose status is `interrupted`, and it is marked running in the
   * same statement: of two processes resuming it, one wins, the other is refused.
   */
  reopenJob(jobId: string, options?: ReopenOptions): void
  /** `contents`: file versions the event names (a `file.change`'s), stored in the same transaction as the event. */
  append(event: NewTraceEvent, contents?: readonly Uint8Array[]): void
  flush(): TraceEvent[]
  onCommit(listener: CommitListener): () => void
  readonly pendingCount: number
  /** Tells other processes this one still runs its jobs (their `heartbeat_at`, store/owner.ts), on the writer's connection. */
  heartbeat(at: Date): void
  close(): void
}

type QueuedEvent = CheckedEvent

interface CommittedBatch {
  stored: TraceEvent[]
  /** Events not stored because another process runs their job, by job id. */
  refused: Map<string, number>
}

/**
 * The one writer of the trace. `append` queues; a batch is committed in ONE transaction that
 * inserts the events and applies the projections (agents and jobs rows), then listeners hear
 * about the stored events, seq included. A job's row is inserted by `createJob`, which the
 * supervisor calls before appending the job's `job.start`; events of a job the store does not
 * know are refused at `append`. A failed commit keeps its events queued and is retried by the
 * next flush. Listeners run synchronously after the commit, so they may run inside `append`
 * when it fills a batch; a listener that throws is reported to `onError` and the rest still run.
 * Jobs carry settings only: API keys never reach the store.
 *
 * A writer with an `owner` never writes into a job another process runs: such events are
 * dropped at commit and reported to `onError`. That covers a control aimed at another process's
 * job, and a job this process lost while it was stopped (another process ended it as
 * interrupted): its late events would otherwise land after the job's end.
 */
export class TraceWriter implements TraceLog {
  private queue: QueuedEvent[] = []
  private cancelTimer: (() => void) | null = null
  private readonly listeners = new Set<CommitListener>()
  private readonly deliveries: TraceEvent[][] = []
  private delivering = false
  private readonly gate: AppendGate
  /** Jobs this writer created: once another process owns one, nothing more is written to it. */
  private readonly createdJobs = new Set<string>()
  private closed = false
  readonly owner: OwnerIdentity | null
  private readonly maxBatch: number
  private readonly flushDelayMs: number
  private readonly onError: (error: unknown) => void
  private readonly projector: BatchProjector
  private readonly owners: JobOwners
  private readonly insertJob: Statement<[JobRow & JobOwnerRow]>
  private readonly selectJobOwner: Statement<[string], { status: string; owner_token: string | null }>
  private readonly claimEndedJob: Statement<[JobOwnerRow & { id: string }]>
  private readonly claimInterruptedJob: Statement<[JobOwnerRow & { id: string }]>
  private readonly insertEvent: Statement<[string, string | null, string | null, number | null, string, string, string]>
  private readonly commitBatch: (batch: QueuedEvent[]) => CommittedBatch

  constructor(db: SqliteDatabase, options: TraceWriterOptions = {}) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000)
    this.flushDelayMs = Math.max(0, options.flushDelayMs ?? 10)
    this.onError = options.onError ?? ((error) => console.error('[arbor store]', error))
    this.owner = options.owner ?? null
    this.projector = new BatchProjector(db)
    this.gate = new AppendGate(db)
    this.owners = jobOwnersFor(db)
    const insertColumns = `${jobColumns}, ${jobOwnerColumns}`
    this.insertJob = db.prepare(
      `INSERT INTO jobs (${insertColumns}) VALUES (${insertColumns
        .split(', ')
        .map((name) => '@' + name)
        .join(', ')})`,
    )
    this.selectJobOwner = db.prepare('SELECT status, owner_token FROM jobs WHERE id = ?')
    this.claimEndedJob = db.prepare(
      `UPDATE jobs SET owner_token = @owner_token, owner_pid = @owner_pid, owner_host = @owner_host, heartbeat_at = @heartbeat_at
       WHERE id = @id AND status != 'running' AND imported = 0`,
    )
    this.claimInterruptedJob = db.prepare(
      `UPDATE jobs SET owner_token = @owner_token, owner_pid = @owner_pid, owner_host = @owner_host, heartbeat_at = @heartbeat_at,
       status = 'running', ended_at = NULL
       WHERE id = @id AND status = 'interrupted' AND imported = 0`,
    )
    this.insertEvent = db.prepare('INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
    this.commitBatch = db.transaction((batch: QueuedEvent[]) => {
      const stored: TraceEvent[] = []
      const refused = new Map<string, number>()
      const writable = new Map<string, boolean>()
      for (const { event, data, contents } of batch) {
        const { type, ts, job_id, agent_id, parent_id, depth } = event
        if (!writable.has(job_id)) writable.set(job_id, this.mayWrite(job_id))
        if (!writable.get(job_id)) {
          refused.set(job_id, (refused.get(job_id) ?? 0) + 1)
          continue
        }
        for (const bytes of contents ?? []) putFileContent(db, bytes)
        event.seq = Number(this.insertEvent.run(job_id, agent_id, parent_id, depth, type, ts, data).lastInsertRowid)
        this.projector.apply(event)
        stored.push(event)
      }
      this.projector.write()
      return { stored, refused }
    })
  }

  /** Inserts the job's row at once (not batched). Call before appending its `job.start`. */
  createJob(job: Job): void {
    this.assertOpen()
    if (this.gate.jobExists(job.id)) throw new StoreError(`Job ${job.id} already exists`)
    this.insertJob.run({ ...jobToRow(job), ...ownerRow(this.owner, new Date()) })
    this.gate.addJob(job.id)
    this.createdJobs.add(job.id)
  }

  /**
   * Makes this process the owner of a job that had ended, so the events of its follow-up are
   * stored (mayWrite). What is queued is committed first, under the owner it was queued for.
   * Throws for a job that is running (another process's, or already this one's) or imported;
   * with `interrupted`, for one that is not interrupted (any more: another process resumed it).
   */
  reopenJob(jobId: string, options: ReopenOptions = {}): void {
    this.assertOpen()
    this.flush()
    const claim = options.interrupted ? this.claimInterruptedJob : this.claimEndedJob
    const claimed = claim.run({ id: jobId, ...ownerRow(this.owner, new Date()) }).changes
    if (claimed === 0 && options.interrupted) {
      throw new StoreError(`Job ${jobId} cannot be resumed: it is not interrupted (another Arbor process may have resumed it)`)
    }
    if (claimed === 0) throw new StoreError(`Job ${jobId} cannot be reopened: it is running, imported or unknown`)
    this.createdJobs.add(jobId)
  }

  /** Queues one event; throws at once if it is malformed or its job is unknown. */
  append(event: NewTraceEvent, contents?: readonly Uint8Array[]): void {
    this.assertOpen()
    const checked = this.gate.check(event)
    this.queue.push(contents?.length ? { ...checked, contents } : checked)
    if (this.queue.length >= this.maxBatch) this.flushQuietly()
    else if (!this.cancelTimer) this.scheduleFlush()
  }

  /**
   * Queues an event another writer's `append` already checked (the writer thread's, whose
   * caller did): no checks, no timer; the caller flushes.
   */
  appendChecked(checked: CheckedEvent): void {
    this.assertOpen()
    this.queue.push(checked)
  }

  /** Commits everything queued now, in one transaction; returns the stored events. */
  flush(): TraceEvent[] {
    this.cancelTimer?.()
    this.cancelTimer = null
    if (this.queue.length === 0) return []
    const batch = this.queue
    this.queue = []
    let committed: CommittedBatch
    try {
      committed = this.commitBatch(batch)
      this.projector.committed()
    } catch (error) {
      this.queue = batch.concat(this.queue)
      throw error
    } finally {
      this.projector.reset()
    }
    for (const [jobId, count] of committed.refused) {
      this.onError(new StoreError(`Job ${jobId} is run by another Arbor process: ${count} of this process's events for it were not stored`))
    }
    this.deliver(committed.stored)
    return committed.stored
  }

  /** Called after each commit with that batch's events in seq order. Returns an unsubscribe. */
  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  heartbeat(at: Date): void {
    if (this.owner) this.owners.heartbeat(this.owner, at)
  }

  get pendingCount(): number {
    return this.queue.length
  }

  /** Flushes what is queued and refuses further events. The database stays open. */
  close(): void {
    if (this.closed) return
    this.flush()
    this.closed = true
  }

  private scheduleFlush(): void {
    if (this.flushDelayMs === 0) {
      const handle = setImmediate(() => this.flushQuietly())
      this.cancelTimer = () => clearImmediate(handle)
    } else {
      const handle = setTimeout(() => this.flushQuietly(), this.flushDelayMs)
      this.cancelTimer = () => clearTimeout(handle)
    }
  }

  private flushQuietly(): void {
    try {
      this.flush()
    } catch (error) {
      this.onError(error)
    }
  }

  /** Listeners hear batches in commit order even if one of them flushes again meanwhile. */
  private deliver(events: TraceEvent[]): void {
    this.deliveries.push(events)
    if (this.delivering) return
    this.delivering = true
    try {
      for (let batch = this.deliveries.shift(); batch; batch = this.deliveries.shift()) {
        for (const listener of [...this.listeners]) {
          try {
            listener(batch)
          } catch (error) {
            this.onError(error)
          }
        }
      }
    } finally {
      this.delivering = false
    }
  }

  /** False for a job another process owns that is still running, or that it took from this writer. */
  private mayWrite(jobId: string): boolean {
    if (!this.owner) return true
    const row = this.selectJobOwner.get(jobId)
    if (!row || row.owner_token === null || row.owner_token === this.owner.token) return true
    return row.status !== 'running' && !this.createdJobs.has(jobId)
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('TraceWriter is closed')
  }
}
