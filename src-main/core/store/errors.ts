import { ArborError } from '../errors'

/** The store's errors' codes: `store` for the base class, one for each subclass. */
export type StoreErrorCode = 'store' | 'database_too_new' | 'unknown_job' | 'invalid_event' | 'trace_parse' | 'job_reference'

/**
 * The store's errors: one base class with typed subclasses. Across a process or IPC boundary
 * they travel as `{code, message}` like every other error (api/contract.ts `ApiError`).
 */
export class StoreError extends ArborError<StoreErrorCode> {
  static override readonly marker: symbol = Symbol.for('arbor.error.StoreError')

  constructor(message: string, options?: { cause?: unknown; code?: StoreErrorCode }) {
    super(options?.code ?? 'store', message, options)
    this.name = 'StoreError'
  }
}

/** The database file was written by a newer Arbor whose schema this code does not know. */
export class DatabaseTooNewError extends StoreError {
  static override readonly marker: symbol = Symbol.for('arbor.error.DatabaseTooNewError')

  constructor(
    readonly file: string,
    readonly fileVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      `Database ${file} has schema version ${fileVersion}, but this Arbor only knows versions up to ` +
        `${supportedVersion}. Upgrade Arbor, or open a different database file.`,
      { code: 'database_too_new' },
    )
    this.name = 'DatabaseTooNewError'
  }
}

/** An event or job refers to a job the store has never been told about. */
export class UnknownJobError extends StoreError {
  static override readonly marker: symbol = Symbol.for('arbor.error.UnknownJobError')

  constructor(readonly jobId: string) {
    super(`Unknown job ${jobId}: call TraceWriter.createJob before appending its events`, { code: 'unknown_job' })
    this.name = 'UnknownJobError'
  }
}

/** An event handed to the writer does not have the shape of a trace event. */
export class InvalidEventError extends StoreError {
  static override readonly marker: symbol = Symbol.for('arbor.error.InvalidEventError')

  constructor(message: string) {
    super(`Invalid trace event: ${message}`, { code: 'invalid_event' })
    this.name = 'InvalidEventError'
  }
}

/** A line of a trace JSONL file is not valid; `line` is 1-based. */
export class TraceParseError extends StoreError {
  static override readonly marker: symbol = Symbol.for('arbor.error.TraceParseError')

  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`Trace line ${line}: ${detail}`, { code: 'trace_parse' })
    this.name = 'TraceParseError'
  }
}
