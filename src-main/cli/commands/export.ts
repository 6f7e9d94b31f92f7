import path from 'node:path'
import { openDatabase } from '../../core/store/database'
import { exportJobJsonl } from '../../core/store/export'
import { listJobs } from '../../core/store/queries'
import type { CliValues } from '../main'
import { UsageError } from '../usage-error'

export async function runExport(values: CliValues): Promise<number> {
  if (!values.db) throw new UsageError('export needs --db FILE')
  if (!values.out) throw new UsageError('export needs --out FILE')
  if (!values.job === !values.last) throw new UsageError('export needs exactly one of --job ID and --last')
  const format = values.format ?? 'jsonl'
  if (format !== 'jsonl') throw new UsageError(`format "${format}" is not supported yet (jsonl)`)
  const db = openDatabase(path.resolve(values.db))
  try {
    const jobId = values.job ?? listJobs(db)[0]?.id
    if (!jobId) throw new Error('the database holds no jobs')
    const out = path.resolve(values.out)
    const lines = await exportJobJsonl(db, jobId, out)
    console.log(`exported job ${jobId}: ${lines} lines to ${out}`)
    return 0
  } finally {
    db.close()
  }
}
