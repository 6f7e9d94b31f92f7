import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import type { CliValues } from '../cli-values'
import { UsageError } from '../usage-error'
import { printable } from '../printable'
import { cliEngine } from './engine'
import { requireBuiltUi, serveUntilStopped } from './serve'

/**
 * `arbor import FILE.jsonl`: stores a trace, or a Claude Code session with its subagents, read-only
 * and prints its job id (nothing is stored if a line of a trace is bad). Through the engine, so a
 * session is priced with the user's price table and known keys are taken out of it.
 */
export async function runImport(file: string | undefined, values: CliValues): Promise<number> {
  const trace = requireFile(file, 'import')
  const { engine, dbFile } = cliEngine(values.db)
  try {
    const result = engine.importTrace(trace)
    console.log(result.job_id)
    const what = result.format === 'claude-code' ? 'the Claude Code session as ' : ''
    console.error(
      result.existing
        ? `arbor: job ${result.job_id} is already in ${dbFile}; nothing was imported`
        : `arbor: imported ${what}${result.events} events of job ${result.job_id} into ${dbFile} (read-only)`,
    )
    const skipped = describeSkipped(result.skipped)
    if (skipped) console.error(`arbor: skipped ${skipped}`)
    return 0
  } finally {
    await engine.close()
  }
}

/** `3 attachment, 1 malformed lines`: what of a session was not imported, most first. */
export function describeSkipped(skipped: Record<string, number> = {}): string | null {
  const counts = Object.entries(skipped).sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
  if (counts.length === 0) return null
  const total = counts.reduce((sum, [, count]) => sum + count, 0)
  return `${counts.map(([type, count]) => `${count} ${type}`).join(', ')} ${total === 1 ? 'line' : 'lines'}`
}

/**
 * `arbor open FILE.jsonl`: imports the trace (or Claude Code session), then serves the UI with that
 * job selected, read-only and with no project open. The folder the file names as its project is
 * data written by whoever wrote the file: it is printed, never opened, so nothing can be started
 * there from this page.
 */
export async function runOpen(file: string | undefined, values: CliValues): Promise<number> {
  const trace = requireFile(file, 'open')
  requireBuiltUi()
  const { engine, dbFile } = cliEngine(values.db)
  let jobId: string
  let recordedIn: string
  let answer: string | null
  try {
    const imported = engine.importTrace(trace)
    jobId = imported.job_id
    const skipped = describeSkipped(imported.skipped)
    if (skipped) console.error(`arbor: skipped ${skipped} of the Claude Code session`)
    const tree = await engine.handlers.getTree({ job_id: jobId })
    recordedIn = tree.job.project
    answer = tree.answer
  } catch (error) {
    await engine.close()
    throw error
  }
  console.log(`Arbor is showing job ${jobId} from ${trace} (read-only; data: ${dbFile})`)
  console.log(`The trace says it was recorded in ${printable(recordedIn)}; that folder is not opened.`)
  // What the user came for: the root agent's answer, as `arbor run` prints it.
  if (answer !== null) console.log(`result:\n${printable(answer)}`)
  return serveUntilStopped(engine, values, jobId)
}

function requireFile(file: string | undefined, command: string): string {
  if (!file) throw new UsageError(`${command} needs a trace file or a Claude Code session: arbor ${command} FILE.jsonl`)
  const resolved = path.resolve(file)
  if (!existsSync(resolved) || !statSync(resolved).isFile()) throw new UsageError(`not a file: ${resolved}`)
  return resolved
}
