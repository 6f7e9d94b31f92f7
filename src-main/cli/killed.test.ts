import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { waitForNoneLeft } from '../core/testing/processes'
import { runCli, startStuckCli, type StuckCli } from '../core/testing/stuck-cli'
import type { TraceEvent } from '../core/trace/events'

/**
 * `arbor run` SIGKILLed mid-job (nothing of it can clean up): its agents notice the pipe is gone
 * and end, taking their commands with them, so no process is left; the next Arbor process to
 * open the database (the real `arbor export`) finds the job interrupted with every agent ended,
 * and the database still runs jobs.
 */
let stuck: StuckCli | undefined
afterEach(async () => {
  await stuck?.cleanup()
  stuck = undefined
})

function readTrace(file: string): { header: { job: { id: string; status: string } }; events: TraceEvent[] } {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n')
  return { header: JSON.parse(header!), events: lines.map((line) => JSON.parse(line) as TraceEvent) }
}

describe('arbor run SIGKILLed mid-job', () => {
  it('leaves no process behind, and the same database shows the job interrupted and runs the next job', { timeout: 120_000 }, async () => {
    stuck = await startStuckCli('run')
    // The root and its three children, forked by the CLI, and the two of the warm pool still waiting.
    const agents = stuck.tree.filter((info) => info.ppid === stuck!.pid && /agent\/main\.ts|agent\.js/.test(info.args))
    expect(agents).toHaveLength(4 + 2)
    const killedAt = performance.now()
    process.kill(stuck.pid, 'SIGKILL')
    expect(await stuck.exited).toEqual({ code: null, signal: 'SIGKILL' })
    await waitForNoneLeft(
      stuck.marker,
      stuck.tree.map((info) => info.pid),
      5_000,
    )
    console.log(
      `arbor run SIGKILLed: its ${stuck.tree.length} descendant processes were all gone after ${(performance.now() - killedAt).toFixed(0)} ms`,
    )

    // The next process to open the file ends the job: interrupted, every agent ended.
    const exportFile = path.join(path.dirname(stuck.dbFile), 'killed.jsonl')
    const exported = await runCli(['export', '--db', stuck.dbFile, '--last', '--out', exportFile])
    expect(exported.code, exported.stderr).toBe(0)
    const { header, events } = readTrace(exportFile)
    expect(header.job.status).toBe('interrupted')
    expect(events.at(-1)).toMatchObject({ type: 'job.end', data: { status: 'interrupted' } })
    const started = events.filter((event) => event.type === 'agent.start').map((event) => event.agent_id)
    const ended = events.filter((event) => event.type === 'agent.end').map((event) => event.agent_id)
    expect(started).toHaveLength(4)
    expect(new Set(ended)).toEqual(new Set(started))
    expect(events.filter((event) => event.type === 'agent.end').map((event) => event.data.terminal_reason)).toEqual([
      'crashed',
      'crashed',
      'crashed',
      'crashed',
    ])

    // The database still works: another job starts and finishes on it.
    const next = await runCli(['run', stuck.project, '--task', 'after the crash', '--db', stuck.dbFile, '--json'])
    expect(next.code, next.stderr).toBe(0)
    const outcome = JSON.parse(next.stdout) as { job_id: string; status: string }
    expect(outcome.status).toBe('completed')
    expect(outcome.job_id).not.toBe(header.job.id)
  })
})
