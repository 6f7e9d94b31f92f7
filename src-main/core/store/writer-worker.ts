/**
 * The worker thread of a ThreadedTraceWriter (writer-thread.ts): a TraceWriter of its own, on a
 * connection of its own, that commits each batch the main thread posts, projections included,
 * and answers with the events' seqs. Built as out/main/writer-worker.js; run from source with
 * tsx. The main thread has checked every event already (store/append-gate.ts).
 */
import { workerData } from 'node:worker_threads'
import type { TraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import { openDatabase, type SqliteDatabase } from './database'
import { TraceWriter } from './trace-writer'
import { toWireError, type FromWriter, type ToWriter, type WriterWorkerData } from './writer-messages'

const { dbFile, nativeBinding, owner, signal, port } = workerData as WriterWorkerData
const signals = new Int32Array(signal)
// Element 1 tells a main thread asleep in a synchronous wait that this thread is gone.
process.on('exit', () => {
  Atomics.store(signals, 1, 1)
  Atomics.notify(signals, 0)
})

function reply(message: FromWriter): void {
  port.postMessage(message)
  Atomics.add(signals, 0, 1)
  Atomics.notify(signals, 0)
}

let db: SqliteDatabase
let writer: TraceWriter
try {
  db = openDatabase(dbFile, { nativeBinding })
  writer = new TraceWriter(db, { owner: owner ?? undefined, onError: (error) => reply({ type: 'error', error: toWireError(error) }) })
} catch (error) {
  reply({ type: 'ready', error: toWireError(error) })
  process.exit(1)
}
/** Events handed to the writer and not yet committed, in append order (a failed commit keeps them). */
let queued: TraceEvent[] = []

function append(message: Extract<ToWriter, { type: 'append' }>): void {
  for (const [type, ts, job_id, agent_id, parent_id, depth, data, contents] of message.events) {
    const event = { type, ts, job_id, agent_id, parent_id, depth, data: JSON.parse(data) as object, seq: 0 } as TraceEvent
    writer.appendChecked(contents ? { event, data, contents } : { event, data })
    queued.push(event)
  }
  try {
    writer.flush()
  } catch (error) {
    reply({ type: 'failed', id: message.id, error: toWireError(error) })
    return
  }
  if (message.exitAfterCommit) process.exit(70)
  const seqs = queued.map((event) => event.seq)
  queued = []
  reply({ type: 'committed', id: message.id, seqs })
}

function call(id: number, run: () => void): void {
  try {
    run()
    reply({ type: 'done', id, error: null })
  } catch (error) {
    reply({ type: 'done', id, error: toWireError(error) })
  }
}

port.on('message', (message: ToWriter) => {
  switch (message.type) {
    case 'append':
      return append(message)
    case 'createJob':
      return call(message.id, () => writer.createJob(message.job as Job))
    case 'reopenJob':
      return call(message.id, () => writer.reopenJob(message.jobId, { interrupted: message.interrupted === true }))
    case 'heartbeat':
      try {
        writer.heartbeat(new Date(message.at))
      } catch (error) {
        reply({ type: 'error', error: toWireError(error) })
      }
      return
    case 'close':
      call(message.id, () => {
        writer.close()
        db.close()
      })
      return port.close()
  }
})
reply({ type: 'ready', error: null })
