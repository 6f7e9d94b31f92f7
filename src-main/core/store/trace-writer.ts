import type { Statement } from 'better-sqlite3'
import type { NewTraceEvent, TraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import type { SqliteDatabase } from './database'
import { InvalidEventError, StoreError, UnknownJobError } from './errors'
import { checkEvent } from './event-check'
import { BatchProjector } from './projector'
import { jobColumns, jobToRow, type JobRow } from './rows'

export interface TraceWriterOptions {
  /** Flush as soon as this many events are queued. Default 1000. */
  maxBatch?: number
  /** Flush this long after the first queued event; 0 means setImmediate. Default 10 ms. */
  flushDelayMs?: number
  /** Receives errors of automatic flushes and of commit listeners. Default: console.error. */
  onError?: (error: unknown) => void
}

export type CommitListener = (events: TraceEvent[]) => void

interface QueuedEvent {
  event: NewTraceEvent
  data: string
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
 */
export class TraceWriter {
  private queue: QueuedEvent[] = []
  private cancelTimer: (() => void) | null = null
  private readonly listeners = new Set<CommitListener>()
  private readonly deliveries: TraceEvent[][] = []
  private delivering = false
  private readonly knownJobs = new Set<string>()
  /** Agent id → its job, for every agent id seen: agent ids are unique across jobs. */
  private readonly agentJobs = new Map<string, string>()
  private closed = false
  private readonly maxBatch: number
  private readonly flushDelayMs: number
  private readonly onError: (error: unknown) => void
  private readonly projector: BatchProjector
  private readonly insertJob: Statement<[JobRow]>
  private readonly selectJobId: Statement<[string], { id: string }>
  private readonly selectAgentJob: Statement<[string], { job_id: string }>
  private readonly insertEvent: Statement<[string, string | null, string | null, number | null, string, string, string]>
  private readonly commitBatch: (batch: QueuedEvent[]) => TraceEvent[]

  constructor(db: SqliteDatabase, options: TraceWriterOptions = {}) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000)
    this.flushDelayMs = Math.max(0, options.flushDelayMs ?? 10)
    this.onError = options.onError ?? ((error) => console.error('[arbor store]', error))
    this.projector = new BatchProjector(db)
    this.insertJob = db.prepare(
      `INSERT INTO jobs (${jobColumns}) VALUES (${jobColumns.split(', ').map((name) => '@' + name).join(', ')})`,
    )
    this.selectJobId = db.prepare('SELECT id FROM jobs WHERE id = ?')
    this.selectAgentJob = db.prepare('SELECT job_id FROM agents WHERE id = ?')
    this.insertEvent = db.prepare(
      'INSERT INTO events (job_id, agent_id, parent_id, depth, type, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    this.commitBatch = db.transaction((batch: QueuedEvent[]) => {
      const stored: TraceEvent[] = []
      for (const { event, data } of batch) {
        const { type, ts, job_id, agent_id, parent_id, depth } = event
        const info = this.insertEvent.run(job_id, agent_id, parent_id, depth, type, ts, data)
        const seq = Number(info.lastInsertRowid)
        const storedEvent: TraceEvent = { type, seq, ts, job_id, agent_id, parent_id, depth, data: event.data }
        this.projector.apply(storedEvent)
        stored.push(storedEvent)
      }
      this.projector.write()
      return stored
    })
  }

  /** Inserts the job's row at once (not batched). Call before appending its `job.start`. */
  createJob(job: Job): void {
    this.assertOpen()
    if (this.selectJobId.get(job.id)) throw new StoreError(`Job ${job.id} already exists`)
    this.insertJob.run(jobToRow(job))
    this.knownJobs.add(job.id)
  }

  /** Queues one event; throws at once if it is malformed or its job is unknown. */
  append(event: NewTraceEvent): void {
    this.assertOpen()
    const queued = checkEvent(event)
    const { job_id, agent_id, data } = queued.event
    this.assertKnownJob(job_id)
    if (agent_id !== null) this.claimAgent(agent_id, job_id)
    if (typeof data.child_agent_id === 'string') this.claimAgent(data.child_agent_id, job_id)
    this.queue.push(queued)
    if (this.queue.length >= this.maxBatch) this.flushQuietly()
    else if (!this.cancelTimer) this.scheduleFlush()
  }

  /** Commits everything queued now, in one transaction; returns the stored events. */
  flush(): TraceEvent[] {
    this.cancelTimer?.()
    this.cancelTimer = null
    if (this.queue.length === 0) return []
    const batch = this.queue
    this.queue = []
    let stored: TraceEvent[]
    try {
      stored = this.commitBatch(batch)
    } catch (error) {
      this.queue = batch.concat(this.queue)
      throw error
    } finally {
      this.projector.reset()
    }
    this.deliver(stored)
    return stored
  }

  /** Called after each commit with that batch's events in seq order. Returns an unsubscribe. */
  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
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

  private assertKnownJob(jobId: string): void {
    if (this.knownJobs.has(jobId)) return
    if (!this.selectJobId.get(jobId)) throw new UnknownJobError(jobId)
    this.knownJobs.add(jobId)
  }

  /** Refuses an agent id that already belongs to another job (it would overwrite that job's node). */
  private claimAgent(agentId: string, jobId: string): void {
    let owner = this.agentJobs.get(agentId)
    if (owner === undefined) {
      owner = this.selectAgentJob.get(agentId)?.job_id ?? jobId
      this.agentJobs.set(agentId, owner)
    }
    if (owner !== jobId) throw new InvalidEventError(`agent ${agentId} belongs to job ${owner}, not ${jobId}`)
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('TraceWriter is closed')
  }
}
