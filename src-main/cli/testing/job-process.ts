/**
 * A test fixture, run as its own process: `node --import tsx job-process.ts DB PROJECT JOB_JSON`.
 * Opens DB through the CLI's engine (as `arbor run` does), starts the job JOB_JSON describes (the
 * API's startJob input) and prints one JSON line, `{job_id, pid}`; then it runs until it is
 * killed, so a test can SIGKILL it mid-job as a crash or a reboot would end Arbor.
 */
import { cliEngine } from '../commands/engine'

const [dbFile, projectDir, jobJson] = process.argv.slice(2)
if (!dbFile || !projectDir || !jobJson) throw new Error('usage: job-process.ts DB PROJECT JOB_JSON')

const { engine } = cliEngine(dbFile, projectDir)
const { job_id } = await engine.handlers.startJob(JSON.parse(jobJson))
process.stdout.write(`${JSON.stringify({ job_id, pid: process.pid })}\n`)
