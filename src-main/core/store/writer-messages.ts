import type { MessagePort } from 'node:worker_threads'
import type { Job } from '../trace/model'
import type { OwnerIdentity } from './owner'

/**
 * The contract between a ThreadedTraceWriter (writer-thread.ts) and its worker thread
 * (writer-worker.ts). Both sides are this codebase's, started together from one build, so
 * messages are typed, not parsed. Errors cross as `{name, code, message}`: structured clone
 * keeps no classes.
 */

/** What the worker is started with (`workerData`). */
export interface WriterWorkerData {
  dbFile: string
  nativeBinding?: string
  owner: OwnerIdentity | null
  /** The worker adds 1 to element 0 after each reply and notifies it: a synchronous wait sleeps on it. */
  signal: SharedArrayBuffer
  port: MessagePort
}

/** An event on the wire: its envelope and its data already as JSON (as stored). */
export type WireEvent = [
  type: string,
  ts: string,
  job_id: string,
  agent_id: string | null,
  parent_id: string | null,
  depth: number | null,
  data: string,
  /** The file versions it names (a `file.change`'s), stored with it. */
  contents?: readonly Uint8Array[],
]

export type ToWriter =
  | {
      type: 'append'
      id: number
      events: WireEvent[]
      /** Tests: the thread dies right after this commit, before it replies. */ exitAfterCommit?: boolean
    }
  | { type: 'createJob'; id: number; job: Job }
  | { type: 'reopenJob'; id: number; jobId: string; interrupted?: boolean }
  | { type: 'close'; id: number }
  | { type: 'heartbeat'; at: string }

export interface WireError {
  name: string
  code: string | null
  message: string
}

export type FromWriter =
  /** The thread opened the database (or could not). */
  | { type: 'ready'; error: WireError | null }
  /** A commit: the seq of every event the thread had queued, in append order; 0 for an event refused (another process runs its job). */
  | { type: 'committed'; id: number; seqs: number[] }
  /** A commit failed: its events stay queued in the thread and go with the next one. */
  | { type: 'failed'; id: number; error: WireError }
  | { type: 'done'; id: number; error: WireError | null }
  /** What the thread's writer reported to its onError (events refused as another process's). */
  | { type: 'error'; error: WireError }

export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { name: error.name, code: typeof code === 'string' ? code : null, message: error.message }
  }
  return { name: 'Error', code: null, message: String(error) }
}
