import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { waitForNoneLeft } from '../core/testing/processes'
import { startStuckCli, type StuckCli } from '../core/testing/stuck-cli'
import { stopSignals } from './commands/engine'

/**
 * No orphans on signals: Ctrl-C (SIGINT to the CLI's process group, as a terminal sends it),
 * SIGTERM (`kill PID`) and SIGHUP (the terminal closed: sent to its foreground group) stop
 * `arbor run` and `arbor serve` mid-job. Afterwards the CLI has exited by itself (not been killed
 * by the signal), nothing it started runs (agents, sandboxes, shells, `sleep`), and it ended its
 * own job in the trace (every agent ended, the job cancelled) instead of leaving it running for
 * the next process to find interrupted. `serve` needs the built UI (npm run build). (SIGHUP
 * killed both commands outright until they handled it: the job stayed `running` in the file.)
 */
let stuck: StuckCli | undefined
afterEach(async () => {
  await stuck?.cleanup()
  stuck = undefined
})

const signals = [
  ['Ctrl-C (SIGINT to its group)', 'SIGINT', 'group'],
  ['SIGTERM to its pid', 'SIGTERM', 'pid'],
  ['SIGHUP to its group', 'SIGHUP', 'group'],
] as const

/** The job's status and its agents' as stored, read without opening the database as Arbor would (that would end the job). */
function storedStatuses(dbFile: string): { job: string; agents: string[] } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true })
  try {
    const job = db.prepare('SELECT status FROM jobs').get() as { status: string }
    const agents = (db.prepare('SELECT status FROM agents ORDER BY created_seq').all() as { status: string }[]).map((row) => row.status)
    return { job: job.status, agents }
  } finally {
    db.close()
  }
}

describe.each(['run', 'serve'] as const)('arbor %s stopped mid-job', (command) => {
  it.each(signals)('by %s: exits, leaves no process, ends its job', { timeout: 120_000 }, async (_name, signal, target) => {
    stuck = await startStuckCli(command)
    const signalledAt = performance.now()
    process.kill(target === 'group' ? -stuck.pid : stuck.pid, signal)
    const exit = await stuck.exited
    console.log(`arbor ${command}, ${signal}: exited ${JSON.stringify(exit)} after ${(performance.now() - signalledAt).toFixed(0)} ms`)
    await waitForNoneLeft(
      stuck.marker,
      stuck.tree.map((info) => info.pid),
      5_000,
    )

    expect(exit.signal, `arbor ${command} was killed by ${signal} instead of stopping its agents:\n${stuck.output()}`).toBeNull()
    // `run` exits as a shell expects after the signal (128 + N); `serve` treats a signal as its normal way to stop.
    expect(exit.code).toBe(command === 'run' ? stopSignals[signal] : 0)
    const statuses = storedStatuses(stuck.dbFile)
    expect(statuses.job).toBe('cancelled')
    // Its tree's last line names the job as what happened to it: the user killed it.
    if (command === 'run') expect(stuck.output()).toMatch(/^job job_\S+ killed$/m)
    expect(statuses.agents).toHaveLength(4)
    expect(statuses.agents.filter((status) => status === 'running' || status === 'queued' || status === 'held')).toEqual([])
  })
})
