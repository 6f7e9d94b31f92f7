import type { SqliteDatabase } from './database'
import { StoreError } from './errors'

/** A part of an id shorter than this is not taken for a job, as git takes no shorter abbreviation. */
export const minimumReferenceLength = 4
/** How many of the jobs a reference matches an error names. */
const namedMatches = 5

/** A job reference that names no job, or more than one. */
export class JobReferenceError extends StoreError {
  static override readonly marker: symbol = Symbol.for('arbor.error.JobReferenceError')

  constructor(
    message: string,
    /** The ids the reference matched, newest first (at most a few): empty when it matched none. */
    readonly matches: readonly string[],
  ) {
    super(message, { code: 'job_reference' })
    this.name = 'JobReferenceError'
  }
}

/**
 * The id of the job a user names: its whole id, a unique start of it with or without `job_`
 * (`job_1275`, `1275eaf0`), or the short id the UI shows (the id's last characters). A reference
 * that matches no job, or several, is refused with the ids it matched, newest first.
 */
export function resolveJobReference(db: SqliteDatabase, reference: string): string {
  const exact = db.prepare<[string], { id: string }>('SELECT id FROM jobs WHERE id = ?').get(reference)
  if (exact) return exact.id
  if (reference.length < minimumReferenceLength) {
    throw new JobReferenceError(`no job has the id ${reference} (a part of an id needs ${minimumReferenceLength} characters or more)`, [])
  }
  const part = reference.replace(/[\\%_]/g, (character) => `\\${character}`)
  const matches = db
    .prepare<[string, string, string], { id: string }>(
      `SELECT id FROM jobs WHERE id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\'
       ORDER BY created_at DESC, rowid DESC`,
    )
    .all(`${part}%`, `job\\_${part}%`, `%${part}`)
    .map((row) => row.id)
  if (matches.length === 1) return matches[0]!
  if (matches.length === 0) throw new JobReferenceError(`no job id starts or ends with ${reference}`, [])
  const named = matches.slice(0, namedMatches)
  const more = matches.length > namedMatches ? ` and ${matches.length - namedMatches} more` : ''
  throw new JobReferenceError(`${reference} matches ${matches.length} jobs: ${named.join(', ')}${more}; give more of the id`, named)
}
