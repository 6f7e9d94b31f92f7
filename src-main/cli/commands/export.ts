import path from 'node:path'
import { OtlpEndpointError, parseHeaders, tracesUrl } from '../../core/api/otlp-endpoint'
import { pushJob } from '../../core/otlp/push'
import { FileKeyStore } from '../../core/settings/key-store'
import { knownSecrets } from '../../core/settings/known-secrets'
import { createRedactor } from '../../core/secrets/redact'
import { openDatabase, type SqliteDatabase } from '../../core/store/database'
import { exportJob, jsonlFormat } from '../../core/store/export'
import { jsonlWithContentsFormat } from '../../core/store/export-contents'
import { endInterruptedJobs } from '../../core/store/interrupted'
import { otlpFormat } from '../../core/otlp/otlp-json'
import { newOwnerIdentity } from '../../core/store/owner'
import { resolveJobReference } from '../../core/store/job-reference'
import { listJobs } from '../../core/store/queries'
import { TraceWriter } from '../../core/store/trace-writer'
import type { CliValues } from '../cli-values'
import { UsageError } from '../usage-error'

export async function runExport(values: CliValues): Promise<number> {
  if (!values.db) throw new UsageError('export needs --db FILE')
  if (!values.job === !values.last) throw new UsageError('export needs exactly one of --job ID and --last')
  const push = values['otlp-endpoint'] !== undefined ? pushTarget(values) : null
  if (!push && values.header?.length) throw new UsageError('--header goes with --otlp-endpoint')
  if (!push && !values.out) throw new UsageError('export needs --out FILE (or --otlp-endpoint URL)')
  const format = values.format ?? 'jsonl'
  if (format !== 'jsonl' && format !== 'otlp') throw new UsageError(`unknown format "${format}" (jsonl or otlp)`)
  if (values['with-file-contents'] && (push || format !== 'jsonl'))
    throw new UsageError('--with-file-contents goes with a JSONL export (--out FILE)')
  const dbFile = path.resolve(values.db)
  // The keys the engine on this database knows (keys.json beside it, the provider variables) never leave in an export.
  const secrets = knownSecrets({ keys: new FileKeyStore(path.join(path.dirname(dbFile), 'keys.json')), env: process.env })
  const db = openDatabase(dbFile)
  const writer = new TraceWriter(db, { owner: newOwnerIdentity() })
  try {
    // A job whose process is gone is exported as it ended: interrupted, every agent ended. A job
    // another live process runs is left to it and exported as it stands.
    endInterruptedJobs(db, writer)
    const jobId = values.job === undefined ? listJobs(db)[0]?.id : resolveJobReference(db, values.job)
    if (!jobId) throw new Error('the database holds no jobs')
    if (push) return await pushToCollector(db, jobId, push, secrets)
    const out = path.resolve(values.out!)
    const redactor = createRedactor(secrets)
    const chosen =
      format === 'otlp' ? otlpFormat() : values['with-file-contents'] ? jsonlWithContentsFormat(db, redactor.secrets) : jsonlFormat()
    const count = await exportJob(db, jobId, out, chosen, { redactor })
    console.log(`exported job ${jobId}: ${count} ${format === 'otlp' ? 'spans (OTLP JSON)' : 'lines'} to ${out}`)
    return 0
  } finally {
    writer.close()
    db.close()
  }
}

interface PushTarget {
  url: string
  headers: Record<string, string>
}

function pushTarget(values: CliValues): PushTarget {
  if (values.out || values.format) throw new UsageError('--otlp-endpoint sends the job to a collector: leave out --out and --format')
  try {
    return { url: tracesUrl(values['otlp-endpoint'] ?? ''), headers: parseHeaders(values.header ?? []) }
  } catch (error) {
    if (OtlpEndpointError.isInstance(error)) throw new UsageError(error.message)
    throw error
  }
}

/** Failures (unreachable, refused, timed out) throw a one-line OtlpPushError: `arbor: …`, exit 1. */
async function pushToCollector(db: SqliteDatabase, jobId: string, target: PushTarget, secrets: readonly string[]): Promise<number> {
  const { spans, url } = await pushJob(db, jobId, { endpoint: target.url, headers: target.headers, secrets })
  console.log(`sent job ${jobId}: ${spans} spans (OTLP/HTTP protobuf) to ${new URL(url).origin}${new URL(url).pathname}`)
  return 0
}
