import { answerApprovals } from '../approvals'
import { askForBudgets, stopAtBudgets } from '../budget-prompt'
import type { CliValues } from '../cli-values'
import { printTree } from '../tree-printer'
import { JobRefused, UsageError } from '../usage-error'
import { openDatabase } from '../../core/store/database'
import { JobReferenceError, resolveJobReference } from '../../core/store/job-reference'
import { listJobs } from '../../core/store/queries'
import { closeOnSignal } from './engine'
import { headlessEngine, reportRun, wrapUpJob } from './run'

/** The flags `resume` takes; a job's own settings stand, so none of `run`'s job flags. */
const resumeFlags = new Set(['db', 'job', 'last', 'json', 'export', 'warm-pool', 'help'])

/**
 * `arbor resume [--db FILE] (--job ID | --last)`: an interrupted job (its Arbor process quit,
 * crashed or was killed) goes on in this process: the agents that were running continue from
 * their histories, held and queued spawns wait again (supervisor/resume-job.ts). Prints and
 * exits as `arbor run` does; a job that cannot be resumed (not interrupted, or another live
 * process resumed it) exits 2 with the reason.
 */
export async function runResume(values: CliValues): Promise<number> {
  const extra = Object.keys(values).filter((flag) => !resumeFlags.has(flag) && values[flag as keyof CliValues] !== undefined)
  if (extra.length > 0) {
    throw new UsageError(`resume goes on with the job's own settings: leave out ${extra.map((flag) => `--${flag}`).join(', ')}`)
  }
  if (!values.job === !values.last) throw new UsageError('resume needs exactly one of --job ID and --last')
  // Headless as run is: a spawn past a job limit is refused, nobody here can allow it.
  const { engine, dbFile } = headlessEngine(values, undefined)
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  const running: { jobId?: string } = {}
  // As for `run`: on a terminal the first Ctrl-C wraps the job up, the second kills it.
  closeOnSignal(engine, interactive ? () => running.jobId !== undefined && wrapUpJob(engine, running.jobId) : undefined)
  const say = values.json ? (line: string) => console.error(line) : (line: string) => console.log(line)
  const started = Date.now()
  let jobId: string
  try {
    jobId = resumedJobId(dbFile, values)
    engine.subscribe(printTree(say))
    engine.subscribe(answerApprovals(engine.supervisor, interactive))
    // As for `run --continue`: a job that pauses at its budget asks for a new one on a terminal; without one it would wait for nobody.
    engine.subscribe(
      interactive ? askForBudgets(engine.supervisor, () => running.jobId) : stopAtBudgets(engine.supervisor, () => running.jobId),
    )
    const { agent_ids } = await engine.handlers.resumeJob({ job_id: jobId })
    running.jobId = jobId
    say(`resuming job ${jobId}: ${agent_ids.length} agent${agent_ids.length === 1 ? '' : 's'} go on`)
  } catch (error) {
    await engine.close()
    if (error instanceof UsageError) throw error
    throw new JobRefused(`the job cannot be resumed: ${error instanceof Error ? error.message : String(error)}`)
  }
  return reportRun(engine, jobId, { values, dbFile, started, say, sinceStarted: true })
}

/** `--last`: the database's newest job (not an imported one); `--job`: an id or a unique part of it. */
function resumedJobId(dbFile: string, values: CliValues): string {
  const db = openDatabase(dbFile)
  try {
    if (values.last) {
      const newest = listJobs(db).find((job) => !job.imported)
      if (!newest) throw new UsageError('resume --last: the database holds no job')
      return newest.id
    }
    return resolveJobReference(db, values.job!)
  } catch (error) {
    if (JobReferenceError.isInstance(error)) throw new UsageError(`--job: ${error.message}`)
    throw error
  } finally {
    db.close()
  }
}
