import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useCleanups } from '../testing/cleanups'
import { complete, processAlive } from '../supervisor/testing'
import type { EventOf, TraceEvent } from '../trace/events'
import { defaultSettings, type ScriptPlan } from '../trace/model'
import { handlerEngine } from './testing'

/**
 * Slow, stuck or dead: every agent process beats while it lives (during a long command too), and
 * one silent past the threshold is marked unresponsive until it speaks again; the user may
 * restart it. Real agent processes stopped with SIGSTOP, real commands, a real SQLite file; the
 * interval and threshold are short so the tests are fast.
 */

const { cleanups, tempDir } = useCleanups('arbor-agent-health-')
const heartbeat = { intervalMs: 100, unresponsiveAfterMs: 1500 }

function setUp() {
  const dir = tempDir()
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Health fixture\n')
  const rig = handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, warmPool: 0, heartbeat, cleanups })
  const start = (script: ScriptPlan): string =>
    rig.engine.supervisor.startJob({ project, task: 'health', settings: defaultSettings({ script }) })
  return { ...rig, project, start }
}

const ofType = <T extends TraceEvent['type']>(events: TraceEvent[], type: T) =>
  events.filter((event): event is EventOf<T> => event.type === type)
const bash = (command: string) => ({ tool_calls: [{ name: 'bash', arguments: { command } }] })
const waitForGo = bash('until [ -f go ]; do sleep 0.1; done')
const health = (state: 'unresponsive' | 'responsive') => (event: TraceEvent) => event.type === 'agent.health' && event.data.state === state

describe('agent heartbeats', () => {
  it('marks a stopped agent process unresponsive, and responsive again once it runs on', async () => {
    const rig = setUp()
    const jobId = rig.start({ root: [waitForGo, complete('went')], children: {} })
    await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash')
    const root = rig.engine.supervisor.rootAgentId(jobId)!
    const pid = rig.engine.supervisor.pidOf(root)!
    process.kill(pid, 'SIGSTOP')
    cleanups.push(() => void process.kill(pid, 'SIGCONT'))
    const silent = (await rig.waitFor(health('unresponsive'), 10_000)) as EventOf<'agent.health'>
    expect(silent.agent_id).toBe(root)
    expect(silent.data.silent_ms).toBeGreaterThanOrEqual(heartbeat.unresponsiveAfterMs)
    expect(Date.parse(silent.data.last_heartbeat_at)).toBeLessThan(Date.parse(silent.ts))
    const tree = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(tree.unresponsive).toEqual([{ agent_id: root, last_heartbeat_at: silent.data.last_heartbeat_at }])

    process.kill(pid, 'SIGCONT')
    const back = (await rig.waitFor(health('responsive'), 10_000)) as EventOf<'agent.health'>
    expect(back.data.last_heartbeat_at).toBe(silent.data.last_heartbeat_at)
    expect((await rig.engine.handlers.getTree({ job_id: jobId })).unresponsive).toEqual([])
    writeFileSync(path.join(rig.project, 'go'), '')
    await rig.engine.waitForJob(jobId)
    // One transition each way, not one event per beat.
    expect(ofType(rig.events, 'agent.health').map((event) => event.data.state)).toEqual(['unresponsive', 'responsive'])
    expect(ofType(rig.events, 'job.end')[0]?.data.status).toBe('completed')
  }, 60_000)

  it('does not flag an agent whose command runs longer than the threshold: its process beats meanwhile', async () => {
    const rig = setUp()
    const jobId = rig.start({ root: [bash('sleep 4'), complete('slept')], children: {} })
    await rig.engine.waitForJob(jobId)
    const result = ofType(rig.events, 'tool.result')[0]
    expect(result?.data.duration_ms).toBeGreaterThan(2 * heartbeat.unresponsiveAfterMs)
    expect(ofType(rig.events, 'agent.health')).toEqual([])
    expect(ofType(rig.events, 'job.end')[0]?.data.status).toBe('completed')
  }, 60_000)

  it('restartAgent kills a stuck agent process and restarts it from its history; the job completes', async () => {
    const rig = setUp()
    const jobId = rig.start({ root: [waitForGo, complete('restarted and done')], children: {} })
    await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash')
    const root = rig.engine.supervisor.rootAgentId(jobId)!
    const pid = rig.engine.supervisor.pidOf(root)!
    process.kill(pid, 'SIGSTOP')
    await rig.waitFor(health('unresponsive'), 10_000)

    expect(await rig.dispatch('restartAgent', { agent_id: root })).toEqual({ ok: true, value: { agent_id: root } })
    const restart = (await rig.waitFor((event) => event.type === 'agent.restart')) as EventOf<'agent.restart'>
    expect(restart.data).toMatchObject({ cause: 'user', signal: 'SIGKILL', restart: 1, restarts_allowed: 1 })
    await rig.waitFor(health('responsive'), 10_000)
    await rig.engine.waitForJob(jobId)
    // The stopped process was killed; another one finished the job.
    expect(processAlive(pid)).toBe(false)
    const end = ofType(rig.events, 'agent.end').find((event) => event.agent_id === root)
    expect(end?.data).toMatchObject({ status: 'completed', result: 'restarted and done' })
    // The command the kill cut short is answered as a crash's is; a second restart of an ended agent is refused.
    const cut = ofType(rig.events, 'message').find(
      (event) => event.data.role === 'tool' && /interrupted by a crash/.test(event.data.content),
    )
    expect(cut).toBeDefined()
    expect(await rig.dispatch('restartAgent', { agent_id: root })).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(ofType(rig.events, 'control').filter((event) => event.data.action === 'restart')).toHaveLength(1)
  }, 60_000)
})
