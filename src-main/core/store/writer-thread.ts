import { pathToFileURL } from 'node:url'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import type { Statement } from 'better-sqlite3'
import type { NewTraceEvent, TraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import { AppendGate } from './append-gate'
import type { SqliteDatabase } from './database'
import { StoreError } from './errors'
import type { CheckedEvent } from './event-check'
import type { OwnerIdentity } from './owner'
import type { CommitListener, ReopenOptions, TraceLog, TraceWriterOptions } from './trace-writer'
import type { FromWriter, ToWriter, WireError, WireEvent, WriterWorkerData } from './writer-messages'

export interface ThreadedTraceWriterOptions extends TraceWriterOptions {
  dbFile: string
  /** The worker's entry: out/main/writer-worker.js in a build, src-main/core/store/writer-worker.ts from source (run with tsx). */
  workerEntry: string
  /** better-sqlite3's binary for this runtime (the app's Electron build), as openDatabase takes it. */
  nativeBinding?: string
  /** How long createJob, flush and close wait for the thread before failing. Default 30 s. */
  replyTimeoutMs?: number
}

/** The writer's thread stopped, could not start, or did not answer. */
export class WriterThreadError extends StoreError {
  constructor(message: string) {
    super(message)
    this.name = 'WriterThreadError'
  }
}

/** Restarts after a crash before the writer gives up and every call throws. */
const maxRestarts = 3
const waitSliceMs = 50

/**
 * The trace's writer with SQLite off this thread: a worker thread commits the batches, the
 * projections with them, on a connection of its own (writer-worker.ts), so a commit never
 * blocks this thread's event loop (the desktop app's main process, which also serves the
 * window). The contract is TraceWriter's: `append` checks at once (store/append-gate.ts, reading
 * on `db`, this thread's connection) and queues; a batch goes to the thread after `flushDelayMs`
 * or at `maxBatch` events; listeners hear each batch, seqs set, once the thread has committed it.
 * `createJob`, `flush` and `close` are synchronous as TraceWriter's are: they post, then sleep on
 * a shared counter (Atomics.wait) until the thread has answered, and take its answers with
 * receiveMessageOnPort, so `flush()` returns with everything queued committed and heard.
 *
 * If the thread dies, the error goes to `onError` and a new thread starts (up to 3 times).
 * Events it had acknowledged are committed (SQLite's WAL keeps a commit through the crash of its
 * process). Of those posted and not acknowledged, the ones found in the table (a commit made just
 * before the thread died: matched by envelope and data, in order, above the last seq heard) are
 * delivered as committed; the rest are posted again to the new thread. An event between two found
 * ones that is not there was refused (another process runs its job) and is not posted again.
 */
export class ThreadedTraceWriter implements TraceLog {
  readonly owner: OwnerIdentity | null
  private readonly gate: AppendGate
  private readonly selectAfter: Statement<[number], StoredEnvelope>
  private readonly listeners = new Set<CommitListener>()
  private readonly deliveries: TraceEvent[][] = []
  private delivering = false
  /** Appended, not yet posted. */
  private queue: CheckedEvent[] = []
  /** Posted, not yet committed, in append order: the thread's own queue. */
  private posted: CheckedEvent[] = []
  private lastPostedId = 0
  private lastAnsweredId = 0
  private lastFailure: WireError | null = null
  private readonly callResults = new Map<number, WireError | null>()
  /** The highest seq heard committed; a recovery looks above it. */
  private lastSeq: number
  private collected: TraceEvent[] | null = null
  private cancelTimer: (() => void) | null = null
  private worker!: Worker
  private port!: MessagePort
  private signals!: Int32Array
  private restarts = 0
  /** The thread whose crash was handled (its exit event may come after a wait found it dead). */
  private deadWorker: Worker | null = null
  private broken: WriterThreadError | null = null
  private closed = false
  private crashNext = false
  private readonly maxBatch: number
  private readonly flushDelayMs: number
  private readonly replyTimeoutMs: number
  private readonly onError: (error: unknown) => void

  constructor(
    db: SqliteDatabase,
    private readonly options: ThreadedTraceWriterOptions,
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000)
    this.flushDelayMs = Math.max(0, options.flushDelayMs ?? 10)
    this.replyTimeoutMs = options.replyTimeoutMs ?? 30_000
    this.onError = options.onError ?? ((error) => console.error('[arbor store]', error))
    this.owner = options.owner ?? null
    this.gate = new AppendGate(db)
    this.selectAfter = db.prepare('SELECT seq, job_id, agent_id, type, ts, data FROM events WHERE seq > ? ORDER BY seq')
    this.lastSeq = (db.prepare('SELECT max(seq) AS seq FROM events').get() as { seq: number | null }).seq ?? 0
    this.start()
  }

  createJob(job: Job): void {
    this.assertOpen()
    const error = this.call({ type: 'createJob', id: ++this.lastPostedId, job })
    if (error) throw fromWire(error)
    this.gate.addJob(job.id)
  }

  reopenJob(jobId: string, options: ReopenOptions = {}): void {
    this.assertOpen()
    // The thread commits what it was sent before it takes the job over.
    this.post()
    const error = this.call({ type: 'reopenJob', id: ++this.lastPostedId, jobId, ...(options.interrupted ? { interrupted: true } : {}) })
    if (error) throw fromWire(error)
  }

  append(event: NewTraceEvent, contents?: readonly Uint8Array[]): void {
    this.assertOpen()
    const checked = this.gate.check(event)
    this.queue.push(contents?.length ? { ...checked, contents } : checked)
    if (this.queue.length >= this.maxBatch) this.post()
    else if (!this.cancelTimer) this.schedulePost()
  }

  /** Commits everything queued, waiting for the thread; returns the events stored meanwhile, and throws if the last commit failed. */
  flush(): TraceEvent[] {
    this.assertUsable()
    this.post()
    // A failed commit's events wait in the thread: an empty batch makes it try them again.
    if (this.queue.length === 0 && this.posted.length > 0 && this.lastAnsweredId === this.lastPostedId) this.send([])
    const collected: TraceEvent[] = []
    this.collected = collected
    try {
      this.waitFor(() => this.lastAnsweredId >= this.lastPostedId)
    } finally {
      this.collected = null
    }
    if (this.posted.length > 0 && this.lastFailure) throw fromWire(this.lastFailure)
    return collected
  }

  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  get pendingCount(): number {
    return this.queue.length + this.posted.length
  }

  /** Posted, not waited for: a failure comes back to `onError`. */
  heartbeat(at: Date): void {
    this.assertUsable()
    this.port.postMessage({ type: 'heartbeat', at: at.toISOString() } satisfies ToWriter)
  }

  /** Flushes, closes the thread's connection and lets the thread end. This thread's `db` stays open. */
  close(): void {
    if (this.closed) return
    if (this.broken) {
      this.closed = true
      return
    }
    this.flush()
    const error = this.call({ type: 'close', id: ++this.lastPostedId })
    this.closed = true
    this.port.close()
    if (error) throw fromWire(error)
  }

  private start(): void {
    const channel = new MessageChannel()
    const signal = new SharedArrayBuffer(8)
    const data: WriterWorkerData = {
      dbFile: this.options.dbFile,
      nativeBinding: this.options.nativeBinding,
      owner: this.owner,
      signal,
      port: channel.port2,
    }
    const worker = workerFor(this.options.workerEntry, data, channel.port2)
    worker.unref()
    this.worker = worker
    this.port = channel.port1
    this.signals = new Int32Array(signal)
    let failure: Error | null = null
    let ready: WireError | null | undefined
    worker.on('error', (error) => (failure = error))
    worker.on('exit', (code) => {
      if (ready === null && worker === this.worker && !this.closed) {
        this.crashed(`it exited with code ${code}${failure ? `: ${failure.message}` : ''}`)
      }
    })
    this.port.on('message', (message: FromWriter) => this.handle(message))
    this.port.unref()
    const onReady = (message: FromWriter) => {
      if (message.type === 'ready') ready = message.error
    }
    this.waitFor(() => ready !== undefined, onReady, 'start')
    if (ready) throw new WriterThreadError(`The trace writer's thread could not open ${this.options.dbFile}: ${ready.message}`)
  }

  private schedulePost(): void {
    if (this.flushDelayMs === 0) {
      const handle = setImmediate(() => this.post())
      this.cancelTimer = () => clearImmediate(handle)
    } else {
      const handle = setTimeout(() => this.post(), this.flushDelayMs)
      this.cancelTimer = () => clearTimeout(handle)
    }
  }

  private post(): void {
    this.cancelTimer?.()
    this.cancelTimer = null
    if (this.queue.length === 0 || this.broken) return
    const batch = this.queue
    this.queue = []
    this.posted.push(...batch)
    this.send(batch)
  }

  /** Tests: the thread exits right after it commits the next batch, before it answers (a crash at the worst moment). */
  crashAfterNextCommit(): void {
    this.crashNext = true
  }

  private send(batch: CheckedEvent[]): void {
    const events = batch.map(({ event: e, data, contents }): WireEvent => {
      const wire: WireEvent = [e.type, e.ts, e.job_id, e.agent_id, e.parent_id, e.depth, data]
      if (contents) wire.push(contents)
      return wire
    })
    const message: ToWriter = { type: 'append', id: ++this.lastPostedId, events, exitAfterCommit: this.crashNext || undefined }
    this.crashNext = false
    this.port.ref()
    this.port.postMessage(message)
  }

  /** A synchronous call: posts `message`, waits for its answer. */
  private call(message: Extract<ToWriter, { type: 'createJob' | 'reopenJob' | 'close' }>): WireError | null {
    this.assertUsable()
    this.port.ref()
    this.port.postMessage(message)
    this.waitFor(() => this.callResults.has(message.id))
    const error = this.callResults.get(message.id) ?? null
    this.callResults.delete(message.id)
    return error
  }

  private handle(message: FromWriter): void {
    switch (message.type) {
      case 'ready':
        return
      case 'committed': {
        this.answered(message.id)
        this.lastFailure = null
        const events = this.posted.splice(0, message.seqs.length)
        const stored: TraceEvent[] = []
        message.seqs.forEach((seq, index) => {
          if (seq <= 0) return
          const { event } = events[index]!
          event.seq = seq
          stored.push(event)
        })
        this.lastSeq = Math.max(this.lastSeq, stored.at(-1)?.seq ?? 0)
        return this.deliver(stored)
      }
      case 'failed':
        this.answered(message.id)
        this.lastFailure = message.error
        // A synchronous flush throws it; an automatic post reports it.
        if (this.collected === null) this.onError(fromWire(message.error))
        return
      case 'done':
        this.answered(message.id)
        this.callResults.set(message.id, message.error)
        return
      case 'error':
        return this.onError(fromWire(message.error))
    }
  }

  private answered(id: number): void {
    this.lastAnsweredId = id
    if (this.lastAnsweredId >= this.lastPostedId) this.port.unref()
  }

  /**
   * Sleeps until `done()`, handling the thread's answers as they come (`handle`, or `onMessage`
   * while the thread starts). A thread that died or said nothing for `replyTimeoutMs` is a crash.
   */
  private waitFor(done: () => boolean, onMessage = (message: FromWriter) => this.handle(message), what = 'answer'): void {
    let deadline = performance.now() + this.replyTimeoutMs
    const generation = this.worker
    while (!done()) {
      const seen = Atomics.load(this.signals, 0)
      let heard = false
      for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
        onMessage(received.message as FromWriter)
        heard = true
      }
      if (heard) {
        deadline = performance.now() + this.replyTimeoutMs
        continue
      }
      if (Atomics.load(this.signals, 1) !== 0 || generation.threadId === -1) {
        if (what === 'start') throw new WriterThreadError("The trace writer's thread stopped as it started")
        this.crashed('it stopped')
        if (this.broken) throw this.broken
        return this.waitFor(done, onMessage, what)
      }
      if (Atomics.wait(this.signals, 0, seen, waitSliceMs) === 'timed-out' && performance.now() > deadline) {
        throw new WriterThreadError(`The trace writer's thread did not ${what} within ${this.replyTimeoutMs} ms`)
      }
    }
  }

  /** The thread is gone: report it, keep what it committed, start another and post it the rest. */
  private crashed(reason: string): void {
    const dead = this.worker
    if (this.broken || this.deadWorker === dead) return
    this.deadWorker = dead
    this.onError(new WriterThreadError(`The trace writer's thread stopped (${reason})`))
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      this.handle(received.message as FromWriter)
    }
    this.port.close()
    void dead.terminate()
    for (let id = this.lastAnsweredId + 1; id <= this.lastPostedId; id++) {
      if (!this.callResults.has(id))
        this.callResults.set(id, { name: 'WriterThreadError', code: null, message: `the writer's thread stopped (${reason})` })
    }
    this.lastAnsweredId = this.lastPostedId
    this.recoverPosted()
    if (++this.restarts > maxRestarts) {
      this.broken = new WriterThreadError(`The trace writer's thread stopped ${this.restarts} times; nothing more is written (${reason})`)
      this.onError(this.broken)
      return
    }
    try {
      this.start()
    } catch (error) {
      this.broken = error instanceof WriterThreadError ? error : new WriterThreadError(String(error))
      this.onError(this.broken)
      return
    }
    this.post()
  }

  /** Of the events posted to the dead thread, delivers those it committed and queues the rest again. */
  private recoverPosted(): void {
    const posted = this.posted
    this.posted = []
    if (posted.length === 0) return
    let next = 0
    let matchedUpTo = 0
    const stored: TraceEvent[] = []
    for (const row of this.selectAfter.iterate(this.lastSeq)) {
      for (let index = next; index < posted.length; index++) {
        if (!sameEvent(posted[index]!, row)) continue
        posted[index]!.event.seq = row.seq
        stored.push(posted[index]!.event)
        next = index + 1
        matchedUpTo = next
        break
      }
      if (next >= posted.length) break
    }
    this.lastSeq = Math.max(this.lastSeq, stored.at(-1)?.seq ?? 0)
    this.queue = posted.slice(matchedUpTo).concat(this.queue)
    this.deliver(stored)
  }

  /** Listeners hear batches in commit order even if one of them flushes again meanwhile. */
  private deliver(events: TraceEvent[]): void {
    if (events.length === 0) return
    this.collected?.push(...events)
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

  private assertOpen(): void {
    if (this.closed) throw new StoreError('TraceWriter is closed')
    this.assertUsable()
  }

  private assertUsable(): void {
    if (this.broken) throw this.broken
  }
}

interface StoredEnvelope {
  seq: number
  job_id: string
  agent_id: string | null
  type: string
  ts: string
  data: string
}

const sameEvent = ({ event, data }: CheckedEvent, row: StoredEnvelope): boolean =>
  event.job_id === row.job_id && event.agent_id === row.agent_id && event.type === row.type && event.ts === row.ts && data === row.data

const fromWire = (error: WireError): StoreError => {
  const restored = new StoreError(error.message)
  restored.name = error.name
  return restored
}

/** From source (a .ts entry) the thread registers tsx first, as the CLI's `--import tsx` does for this one. */
function workerFor(entry: string, workerData: WriterWorkerData, port: MessagePort): Worker {
  const options = { workerData, transferList: [port as never] }
  if (!entry.endsWith('.ts')) return new Worker(entry, options)
  const url = JSON.stringify(pathToFileURL(entry).href)
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${url}) })`, { ...options, eval: true })
}
