/**
 * The store's errors: one base class with typed subclasses. Across a process or IPC boundary
 * they travel as `{code, message}` like every other error (api/contract.ts `ApiError`).
 */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreError'
  }
}

/** The database file was written by a newer Arbor whose schema this code does not know. */
export class DatabaseTooNewError extends StoreError {
  constructor(
    readonly file: string,
    readonly fileVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      `Database ${file} has schema version ${fileVersion}, but this Arbor only knows versions up to ` +
        `${supportedVersion}. Upgrade Arbor, or open a different database file.`,
    )
    this.name = 'DatabaseTooNewError'
  }
}

/** An event or job refers to a job the store has never been told about. */
export class UnknownJobError extends StoreError {
  constructor(readonly jobId: string) {
    super(`Unknown job ${jobId}: call TraceWriter.createJob before appending its events`)
    this.name = 'UnknownJobError'
  }
}

/** An event handed to the writer does not have the shape of a trace event. */
export class InvalidEventError extends StoreError {
  constructor(message: string) {
    super(`Invalid trace event: ${message}`)
    this.name = 'InvalidEventError'
  }
}

/** A line of a trace JSONL file is not valid; `line` is 1-based. */
export class TraceParseError extends StoreError {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`Trace line ${line}: ${detail}`)
    this.name = 'TraceParseError'
  }
}
