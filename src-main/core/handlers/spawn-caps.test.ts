import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useCleanups } from '../testing/cleanups'
import { bundledAgentHost } from '../testing/load-job'
import { complete, exploreResult, taskCall } from '../supervisor/testing'
import type { EventOf, TraceEvent } from '../trace/events'
import { defaultSettings, type JobSettings, type ScriptPlan } from '../trace/model'
import { handlerEngine, type HandlerEngineOptions } from './testing'

/**
 * Job size caps that hold: a spawn past max_agents (or past max_spawns_per_turn) waits as a ghost
 * for the user to allow or cancel it where a user can decide (the app, `arbor serve`), and is
 * refused with the reason where nobody can (`arbor run`). Real agent processes, a real SQLite
 * file, every control through the API dispatcher.
 */

const { cleanups, tempDir } = useCleanups('arbor-spawn-caps-')

function setUp(options: Partial<Pick<HandlerEngineOptions, 'processHost' | 'userDecidesSpawns' | 'waitMs'>> = {}) {
  const dir = tempDir()
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Caps fixture\n')
  const rig = handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, warmPool: 0, cleanups, ...options })
  const start = (script: ScriptPlan, settings: Partial<JobSettings>): string =>
    rig.engine.supervisor.startJob({ project, task: 'fan out', settings: defaultSettings({ ...settings, script }) })
  return { ...rig, dir, project, start }
}

const ofType = <T extends TraceEvent['type']>(events: TraceEvent[], type: T) =>
  events.filter((event): event is EventOf<T> => event.type === type)

/** A root that asks for `count` explore children in one turn (c0, c1, …), each of which completes at once. */
function fanOut(count: number): ScriptPlan {
  const labels = Array.from({ length: count }, (_, index) => `c${index}`)
  return {
    root: [{ tool_calls: labels.map((label) => taskCall(label)) }, complete('root done')],
    children: Object.fromEntries(labels.map((label) => [label, [complete(exploreResult(`${label} done`))]])),
  }
}

const noGuards = { max_depth: 1, max_spawns_per_turn: 0, max_spawns_per_minute: 0 }

describe('max_agents', () => {
  it(
    'holds the 201st spawn of a job at the default cap of 200, names why, and runs it once the user allows it',
    { timeout: 300_000 },
    async () => {
      const rig = setUp({ processHost: await bundledAgentHost(tempDir()), waitMs: 240_000 })
      const started = performance.now()
      const jobId = rig.start(fanOut(201), { ...noGuards, max_concurrent_children: 64 })
      const held = (await rig.waitFor((event) => event.type === 'subagent.held')) as EventOf<'subagent.held'>
      expect(held.data).toMatchObject({ description: 'c200', limit: 'max_agents', reason: 'job has 200 agents (max_agents)' })
      // The other 200 ran; the held one waits until the user decides, however long the rest take.
      await rig.waitFor(() => ofType(rig.events, 'subagent.end').length === 200, 240_000)
      expect(ofType(rig.events, 'subagent.held')).toHaveLength(1)
      const tree = await rig.engine.handlers.getTree({ job_id: jobId })
      expect(tree.held).toEqual([{ agent_id: held.data.child_agent_id, limit: 'max_agents', reason: held.data.reason }])
      expect(tree.agents.find((agent) => agent.id === held.data.child_agent_id)?.status).toBe('held')

      expect(await rig.dispatch('allowSpawn', { agent_id: held.data.child_agent_id })).toEqual({
        ok: true,
        value: { agent_id: held.data.child_agent_id },
      })
      await rig.engine.waitForJob(jobId)
      const seconds = (performance.now() - started) / 1000
      console.log(`spawn-caps: 201 children at concurrency 64 in ${seconds.toFixed(1)} s`)
      const ends = ofType(rig.events, 'agent.end').filter((event) => event.parent_id !== null)
      expect(ends).toHaveLength(201)
      expect(ends.every((event) => event.data.status === 'completed')).toBe(true)
      const allowed = ofType(rig.events, 'control').filter((event) => event.data.action === 'allow_spawn')
      expect(allowed.map((event) => [event.agent_id, event.data.value, event.data.by])).toEqual([
        [held.data.child_agent_id, 'max_agents', 'user'],
      ])
      expect(ofType(rig.events, 'job.end')[0]?.data.status).toBe('completed')
    },
  )

  it('keeps a spawn held by the cap through a pause and resume, refuses to allow any other, and starts it when allowed', async () => {
    const rig = setUp()
    const jobId = rig.start(fanOut(3), { ...noGuards, max_agents: 2 })
    const held = (await rig.waitFor((event) => event.type === 'subagent.held')) as EventOf<'subagent.held'>
    expect(held.data).toMatchObject({ description: 'c2', limit: 'max_agents', reason: 'job has 2 agents (max_agents)' })
    await rig.waitFor(() => ofType(rig.events, 'subagent.end').length === 2)

    // Resuming spawning starts what the pause held, never what the cap held.
    expect((await rig.dispatch('setSpawnPaused', { job_id: jobId, paused: true })).ok).toBe(true)
    expect((await rig.dispatch('setSpawnPaused', { job_id: jobId, paused: false })).ok).toBe(true)
    const tree = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(tree.agents.find((agent) => agent.id === held.data.child_agent_id)?.status).toBe('held')
    expect(ofType(rig.events, 'agent.start').some((event) => event.agent_id === held.data.child_agent_id)).toBe(false)

    const root = rig.engine.supervisor.rootAgentId(jobId)!
    const refused = await rig.dispatch('allowSpawn', { agent_id: root })
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/not waiting to be allowed/) } })
    expect(await rig.dispatch('allowSpawn', { agent_id: 'agent_nope' })).toMatchObject({ ok: false, error: { code: 'not_found' } })

    expect((await rig.dispatch('allowSpawn', { agent_id: held.data.child_agent_id })).ok).toBe(true)
    await rig.engine.waitForJob(jobId)
    const childEnd = ofType(rig.events, 'agent.end').find((event) => event.agent_id === held.data.child_agent_id)
    expect(childEnd?.data.status).toBe('completed')
    // Allowed once, it counts: a second allow is refused.
    expect(await rig.dispatch('allowSpawn', { agent_id: held.data.child_agent_id })).toMatchObject({ ok: false })
  }, 60_000)

  it("stops its parent's wall clock while the spawn waits for the user, as an approval does", async () => {
    const rig = setUp()
    const limitMs = 8000
    const started = Date.now()
    const jobId = rig.start(fanOut(2), { ...noGuards, max_agents: 1, agent_timeout_ms: limitMs })
    const held = (await rig.waitFor((event) => event.type === 'subagent.held')) as EventOf<'subagent.held'>
    await rig.waitFor(() => ofType(rig.events, 'subagent.end').length === 1)
    // Past the root's limit in real time: only the time it waited for the user is not counted.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + limitMs + 1000 - Date.now())))
    expect((await rig.dispatch('allowSpawn', { agent_id: held.data.child_agent_id })).ok).toBe(true)
    await rig.engine.waitForJob(jobId)
    const rootEnd = ofType(rig.events, 'agent.end').find((event) => event.parent_id === null)
    expect(rootEnd?.data).toMatchObject({ status: 'completed', terminal_reason: 'completed' })
  }, 60_000)

  it('headless (nobody to allow), refuses the spawn past the cap with the reason the model reads', async () => {
    const rig = setUp({ userDecidesSpawns: false })
    const jobId = rig.start(fanOut(3), { ...noGuards, max_agents: 2 })
    await rig.engine.waitForJob(jobId)
    const denied = ofType(rig.events, 'subagent.denied')
    expect(denied.map((event) => event.data.description)).toEqual(['c2'])
    expect(denied[0]!.data.reason).toMatch(/started 2 subagents, its limit \(max_agents\)/)
    const seen = ofType(rig.events, 'tool.result').find((event) => event.data.call_id === denied[0]!.data.call_id)
    expect(String(seen?.data.output)).toContain('max_agents')
    expect(ofType(rig.events, 'subagent.held')).toHaveLength(0)
    expect(ofType(rig.events, 'job.end')[0]?.data.status).toBe('completed')
  }, 60_000)
})

describe('max_spawns_per_turn where a user can decide', () => {
  it('holds each spawn past the per-turn guard: one allowed runs, one cancelled answers the parent with an error', async () => {
    const rig = setUp()
    const jobId = rig.start(fanOut(4), { max_depth: 1, max_spawns_per_turn: 2, max_concurrent_children: 5 })
    await rig.waitFor(() => ofType(rig.events, 'subagent.held').length === 2)
    const held = ofType(rig.events, 'subagent.held')
    expect(held.map((event) => [event.data.description, event.data.limit])).toEqual([
      ['c2', 'max_spawns_per_turn'],
      ['c3', 'max_spawns_per_turn'],
    ])
    expect(held[0]!.data.reason).toMatch(/more than 2 spawns in one turn \(max_spawns_per_turn\)/)
    expect(ofType(rig.events, 'subagent.denied')).toHaveLength(0)

    expect((await rig.dispatch('allowSpawn', { agent_id: held[0]!.data.child_agent_id })).ok).toBe(true)
    expect(await rig.dispatch('cancelSpawn', { agent_id: held[1]!.data.child_agent_id })).toEqual({ ok: true, value: { cancelled: true } })
    await rig.engine.waitForJob(jobId)
    const statusOf = (id: string) => ofType(rig.events, 'agent.end').find((event) => event.agent_id === id)?.data.status
    expect(statusOf(held[0]!.data.child_agent_id)).toBe('completed')
    expect(statusOf(held[1]!.data.child_agent_id)).toBe('cancelled')
    const answer = ofType(rig.events, 'tool.result').find((event) => event.data.call_id === held[1]!.data.call_id)
    expect(String(answer?.data.output)).toContain('spawn cancelled by the user')
    expect(ofType(rig.events, 'job.end')[0]?.data.status).toBe('completed')
  }, 60_000)
})
