import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from './database'
import { JobReferenceError, resolveJobReference } from './job-reference'
import { sampleJob } from './testing/job-fixture'
import { TraceWriter } from './trace-writer'

/** A database file holding jobs with these ids, created a second apart in this order. */
function databaseWith(ids: string[]) {
  const db = openDatabase(path.join(mkdtempSync(path.join(os.tmpdir(), 'arbor-job-ref-')), 'arbor.db'))
  const writer = new TraceWriter(db)
  ids.forEach((id, index) => writer.createJob(sampleJob({ id, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString() })))
  return db
}

/** The error a reference gets, for its message and the ids it names. */
function refusal(run: () => unknown): JobReferenceError {
  try {
    run()
  } catch (error) {
    if (JobReferenceError.isInstance(error)) return error
    throw error
  }
  throw new Error('the reference was taken')
}

describe('resolveJobReference', () => {
  const ids = ['job_1275eaf0c3d2', 'job_1275ffff0001', 'job_9a8b7c6d5e4f', 'job_cc_3a0c5e7d-21f4']

  it('takes a whole id, a unique start of it with or without job_, and the short id the UI shows', () => {
    const db = databaseWith(ids)
    expect(resolveJobReference(db, 'job_9a8b7c6d5e4f')).toBe('job_9a8b7c6d5e4f')
    expect(resolveJobReference(db, 'job_9a8b')).toBe('job_9a8b7c6d5e4f')
    expect(resolveJobReference(db, '9a8b')).toBe('job_9a8b7c6d5e4f')
    expect(resolveJobReference(db, '1275eaf0')).toBe('job_1275eaf0c3d2')
    // The UI's short id is the id's last 8 characters.
    expect(resolveJobReference(db, '7c6d5e4f')).toBe('job_9a8b7c6d5e4f')
    expect(resolveJobReference(db, 'cc_3a0c')).toBe('job_cc_3a0c5e7d-21f4')
  })

  it('refuses a reference that matches several jobs, naming them newest first', () => {
    const db = databaseWith(ids)
    const error = refusal(() => resolveJobReference(db, '1275'))
    expect(error.code).toBe('job_reference')
    expect(error.matches).toEqual(['job_1275ffff0001', 'job_1275eaf0c3d2'])
    expect(error.message).toBe('1275 matches 2 jobs: job_1275ffff0001, job_1275eaf0c3d2; give more of the id')
  })

  it('names five of many matches and counts the rest', () => {
    const many = Array.from({ length: 8 }, (_, index) => `job_abcd${String(index).padStart(8, '0')}`)
    const error = refusal(() => resolveJobReference(databaseWith(many), 'abcd'))
    expect(error.matches).toEqual(many.slice(3).reverse())
    expect(error.message).toContain('abcd matches 8 jobs: job_abcd00000007, ')
    expect(error.message).toContain(' and 3 more; give more of the id')
  })

  it('refuses a reference that matches nothing, one too short to be a part of an id, and LIKE wildcards as such', () => {
    const db = databaseWith(ids)
    expect(refusal(() => resolveJobReference(db, 'beef')).message).toBe('no job id starts or ends with beef')
    expect(refusal(() => resolveJobReference(db, 'job')).message).toContain('a part of an id needs 4 characters or more')
    // % and _ are characters of the reference, not patterns: "job_%" matches no id literally.
    expect(refusal(() => resolveJobReference(db, 'job_%')).matches).toEqual([])
    expect(refusal(() => resolveJobReference(db, '____')).matches).toEqual([])
  })
})
