import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { openDatabase } from '../../core/store/database'
import { importTraceFile } from '../../core/store/import-job'
import type { CliValues } from '../main'
import { defaultDbFile } from '../paths'
import { UsageError } from '../usage-error'
import { cliEngine } from './engine'
import { requireBuiltUi, serveUntilStopped } from './serve'

/** `arbor import FILE.jsonl`: stores a trace read-only and prints its job id (nothing is stored if a line is bad). */
export async function runImport(file: string | undefined, values: CliValues): Promise<number> {
  const trace = requireFile(file, 'import')
  const dbFile = path.resolve(values.db ?? defaultDbFile())
  const db = openDatabase(dbFile)
  try {
    const result = importTraceFile(db, trace)
    console.log(result.job_id)
    console.error(
      result.existing
        ? `arbor: job ${result.job_id} is already in ${dbFile}; nothing was imported`
        : `arbor: imported ${result.events} events of job ${result.job_id} into ${dbFile} (read-only)`,
    )
    return 0
  } finally {
    db.close()
  }
}

/** `arbor open FILE.jsonl`: imports the trace, then serves the UI with that job selected. */
export async function runOpen(file: string | undefined, values: CliValues): Promise<number> {
  const trace = requireFile(file, 'open')
  requireBuiltUi()
  const { engine, dbFile } = cliEngine(values.db)
  let jobId: string
  try {
    jobId = engine.importTrace(trace).job_id
    const { job } = await engine.handlers.getTree({ job_id: jobId })
    // The job's own project, when that folder is on this machine, so the job shows among its others.
    if (statSync(job.project, { throwIfNoEntry: false })?.isDirectory()) engine.openProject(job.project)
  } catch (error) {
    await engine.close()
    throw error
  }
  console.log(`Arbor is showing job ${jobId} from ${trace} (read-only; data: ${dbFile})`)
  return serveUntilStopped(engine, values, jobId)
}

function requireFile(file: string | undefined, command: string): string {
  if (!file) throw new UsageError(`${command} needs a trace file: arbor ${command} FILE.jsonl`)
  const resolved = path.resolve(file)
  if (!existsSync(resolved) || !statSync(resolved).isFile()) throw new UsageError(`not a file: ${resolved}`)
  return resolved
}

