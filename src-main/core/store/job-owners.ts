import type { Statement } from 'better-sqlite3'
import type { SqliteDatabase } from './database'
import type { OwnerIdentity, RecordedOwner } from './owner'
import { jobOwnerColumns, type JobOwnerRow } from './rows'

export interface RunningJobOwner extends RecordedOwner {
  job_id: string
}

/** The owner columns of a job created, heartbeaten or taken over by `owner` at `at`; all null without an owner. */
export const ownerRow = (owner: OwnerIdentity | null, at: Date): JobOwnerRow => ({
  owner_token: owner?.token ?? null,
  owner_pid: owner?.pid ?? null,
  owner_host: owner?.host ?? null,
  heartbeat_at: owner ? at.toISOString() : null,
})

const recorded = (row: JobOwnerRow): RecordedOwner => ({
  token: row.owner_token,
  pid: row.owner_pid,
  host: row.owner_host,
  heartbeat_at: row.heartbeat_at,
})

type TakeOver = JobOwnerRow & { id: string; previous_token: string | null; previous_heartbeat: string | null }

/** Reads and writes who runs each job (store/owner.ts). Statements are prepared once per connection. */
export class JobOwners {
  private readonly oneOwner: Statement<[string], JobOwnerRow>
  private readonly runningOwners: Statement<[], JobOwnerRow & { id: string }>
  private readonly beat: Statement<[string, string]>
  private readonly takeOverJob: Statement<[TakeOver]>

  constructor(db: SqliteDatabase) {
    this.oneOwner = db.prepare(`SELECT ${jobOwnerColumns} FROM jobs WHERE id = ?`)
    this.runningOwners = db.prepare(
      `SELECT id, ${jobOwnerColumns} FROM jobs WHERE status = 'running' AND imported = 0 ORDER BY created_at, rowid`,
    )
    this.beat = db.prepare("UPDATE jobs SET heartbeat_at = ? WHERE owner_token = ? AND status = 'running'")
    this.takeOverJob = db.prepare(
      `UPDATE jobs SET owner_token = @owner_token, owner_pid = @owner_pid, owner_host = @owner_host, heartbeat_at = @heartbeat_at
       WHERE id = @id AND status = 'running' AND owner_token IS @previous_token AND heartbeat_at IS @previous_heartbeat`,
    )
  }

  ownerOf(jobId: string): RecordedOwner | undefined {
    const row = this.oneOwner.get(jobId)
    return row ? recorded(row) : undefined
  }

  /** Every running job that was not imported, oldest first, with its owner. */
  running(): RunningJobOwner[] {
    return this.runningOwners.all().map((row) => ({ job_id: row.id, ...recorded(row) }))
  }

  /** Marks every running job of `owner` alive at `at`; returns how many. */
  heartbeat(owner: OwnerIdentity, at: Date): number {
    return this.beat.run(at.toISOString(), owner.token).changes
  }

  /**
   * Makes `owner` the owner of a running job whose row still says `previous`: of two processes
   * ending the same orphan only one wins, and an owner that heartbeat meanwhile keeps its job.
   */
  takeOver(jobId: string, previous: RecordedOwner, owner: OwnerIdentity, at: Date): boolean {
    const row = { id: jobId, ...ownerRow(owner, at), previous_token: previous.token, previous_heartbeat: previous.heartbeat_at }
    return this.takeOverJob.run(row).changes === 1
  }
}

const cache = new WeakMap<SqliteDatabase, JobOwners>()

export function jobOwnersFor(db: SqliteDatabase): JobOwners {
  let owners = cache.get(db)
  if (!owners) {
    owners = new JobOwners(db)
    cache.set(db, owners)
  }
  return owners
}
