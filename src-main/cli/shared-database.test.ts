import { execFile, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../core/engine'
import { openDatabase } from '../core/store/database'
import { jobOwnersFor } from '../core/store/job-owners'
import { pidAlive, staleAfterMs } from '../core/store/owner'
import { getAgents, getJob, getJobEvents } from '../core/store/queries'
import { recordEvents, testAgentHost } from '../core/supervisor/testing'
import { useCleanups } from '../core/testing/cleanups'
import type { TraceEvent } from '../core/trace/events'

/**
 * One database, several Arbor processes. The owner is a real process that opens the file through
 * the CLI's engine and keeps a job running (testing/job-owner-process.ts: the root, one child in
 * a slow turn, one child queued). Other processes open the same file: the real `arbor export`,
 * and an engine here, as `serve` and the app start. They leave the live job alone; once the owner
 * is SIGKILLed, the next one ends it as interrupted, every agent ended.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const ownerScript = fileURLToPath(new URL('./testing/job-owner-process.ts', import.meta.url))
const exec = promisify(execFile)
const arbor = (args: string[]) => exec(process.execPath, ['--import', 'tsx', cli, ...args], { timeout: 60_000 })

interface LiveJob {
  job_id: string
  agents: { root: string; running: string; queued: string }
  agent_pids: number[]
  pid: number
}

const { cleanups, tempDir } = useCleanups('arbor-shared-db-')

function fixture(): { db: string; project: string; dir: string } {
  const dir = tempDir()
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Fixture\n')
  return { db: path.join(dir, 'arbor.db'), project, dir }
}

/** Starts the owner process; `live` resolves when its job runs one child and queues the other. */
function startOwner(db: string, project: string): { live: Promise<LiveJob>; kill(): Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ownerScript, db, project], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const live = new Promise<LiveJob>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as LiveJob))
    child.once('exit', (code) => reject(new Error(`the owner process exited (${code}) before its job ran`)))
  })
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL')
    await exited
  }
  cleanups.push(async () => {
    await kill()
    // Its agents end when their supervisor's channel closes; make sure of it.
    for (const pid of (await live.catch(() => null))?.agent_pids ?? []) if (pidAlive(pid)) process.kill(pid, 'SIGKILL')
  })
  return { live, kill }
}

function openEngine(db: string, heartbeatMs?: number): Engine {
  const engine = createEngine({ dbFile: db, processHost: testAgentHost(), liveness: { heartbeatMs } })
  cleanups.push(() => engine.close())
  return engine
}

function readTrace(file: string): { header: { job: { status: string } }; events: TraceEvent[] } {
  const [header, ...events] = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown)
  return { header: header as { job: { status: string } }, events: events as TraceEvent[] }
}

const endsOf = (events: TraceEvent[]) =>
  new Map(events.filter((event) => event.type === 'agent.end').map((event) => [event.agent_id, event.data]))

describe('one database, several Arbor processes', () => {
  it('a second process leaves a live job alone; once its owner is killed, arbor export ends it as interrupted with every agent ended', async () => {
    const { db, project, dir } = fixture()
    const owner = startOwner(db, project)
    const live = await owner.live
    const { root, running, queued } = live.agents

    // `arbor export` while the owner runs: the job as it stands, nothing ended.
    const during = path.join(dir, 'during.jsonl')
    await arbor(['export', '--db', db, '--job', live.job_id, '--out', during])
    const first = readTrace(during)
    expect(first.header.job.status).toBe('running')
    expect(first.events.filter((event) => event.type === 'agent.end' || event.type === 'job.end')).toEqual([])

    // An engine starting on the same file, as `serve` or the app does: it shows the job, and
    // answers every control with conflict instead of writing into the other process's trace.
    const engine = openEngine(db)
    const { job, agents } = await engine.handlers.getTree({ job_id: live.job_id })
    expect(job.status).toBe('running')
    expect(Object.fromEntries(agents.map((agent) => [agent.id, agent.status]))).toEqual({
      [root]: 'running',
      [running]: 'running',
      [queued]: 'queued',
    })
    const controls = [
      () => engine.handlers.killAgent({ agent_id: running }),
      () => engine.handlers.cancelSpawn({ agent_id: queued }),
      () => engine.handlers.setAutoApprove({ job_id: live.job_id, value: true }),
      () => engine.handlers.setSpawnPaused({ job_id: live.job_id, paused: true }),
      // Merge and Discard too: the owner's agents may still be using their worktrees.
      () => engine.handlers.mergeBranch({ agent_id: running }),
      () => engine.handlers.discardBranch({ agent_id: running }),
    ]
    for (const control of controls) {
      await expect(control()).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining(`running in another Arbor process (pid ${live.pid}`),
      })
    }
    await engine.close()
    // The same from the terminal: `arbor merge` is refused with the reason (exit 2), and writes nothing.
    const merge = await arbor(['merge', live.job_id, '--agent', running, '--db', db]).catch(
      (error: { code: number; stderr: string }) => error,
    )
    expect(merge).toMatchObject({ code: 2, stderr: expect.stringContaining(`running in another Arbor process (pid ${live.pid}`) })

    const check = openDatabase(db)
    cleanups.push(() => void check.close())
    expect(getJobEvents(check, live.job_id, 0, 10_000).filter((event) => event.type === 'control')).toEqual([])
    expect(getJob(check, live.job_id)).toMatchObject({ status: 'running', auto_approve: false, spawn_paused: false })
    // Still the owner's, and its heartbeat is fresh.
    const recorded = jobOwnersFor(check).ownerOf(live.job_id)!
    expect(recorded.pid).toBe(live.pid)
    expect(Date.now() - Date.parse(recorded.heartbeat_at!)).toBeLessThan(staleAfterMs)

    await owner.kill()
    // Nothing has swept the job yet: `arbor export` does, and exports what a clean end would give.
    expect(getJob(check, live.job_id)?.status).toBe('running')
    const after = path.join(dir, 'after.jsonl')
    await arbor(['export', '--db', db, '--job', live.job_id, '--out', after])
    const second = readTrace(after)
    expect(second.header.job.status).toBe('interrupted')
    const ends = endsOf(second.events)
    expect([...ends.keys()].sort()).toEqual([root, running, queued].sort())
    expect(ends.get(running)).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
    expect(ends.get(queued)).toMatchObject({ status: 'cancelled', terminal_reason: 'cancelled' })
    expect(second.events.at(-1)).toMatchObject({ type: 'job.end', data: { status: 'interrupted' } })
    // The store agrees with the export.
    expect(getJob(check, live.job_id)?.status).toBe('interrupted')
    expect(
      getAgents(check, live.job_id)
        .map((agent) => agent.status)
        .sort(),
    ).toEqual(['cancelled', 'failed', 'failed'])
  }, 120_000)

  it('an engine open when the owner is killed ends the job on its next heartbeat, and its listeners hear it', async () => {
    const { db, project } = fixture()
    const owner = startOwner(db, project)
    const live = await owner.live
    const engine = openEngine(db, 100)
    const { events, waitFor } = recordEvents(engine)
    // Several ticks with the owner alive: nothing is written.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(events).toEqual([])

    await owner.kill()
    const end = await waitFor((event) => event.type === 'job.end', 10_000)
    expect(end.data.status).toBe('interrupted')
    expect([...endsOf(events).keys()].sort()).toEqual(Object.values(live.agents).sort())
    const { job, agents } = await engine.handlers.getTree({ job_id: live.job_id })
    expect(job.status).toBe('interrupted')
    expect(agents.every((agent) => agent.ended_at !== null)).toBe(true)
  }, 120_000)
})
