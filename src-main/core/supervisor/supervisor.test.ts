import { afterEach, describe, expect, it } from 'vitest'
import type { TraceEvent } from '../trace/events'
import { complete, createTestRig, exploreResult, processAlive, taskCall, type TestRig } from './testing'

let rig: TestRig
afterEach(async () => {
  await rig?.engine.close()
})

const ofType = (events: TraceEvent[], type: string): TraceEvent[] => events.filter((event) => event.type === type)
/** The `tool.result` of a parent's call (call ids are unique per agent, not per job). */
const toolResult = (events: TraceEvent[], request: TraceEvent): TraceEvent | undefined =>
  events.find((event) => event.type === 'tool.result' && event.agent_id === request.agent_id && event.data.call_id === request.data.call_id)

describe('supervisor with real agent processes', () => {
  it('denies a spawn past the depth limit with a clear reason, and the parent goes on', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Nested planner', 'general')] }, complete('root done')],
        children: { 'Nested planner': [{ tool_calls: [taskCall('Too deep')] }, complete('child done')] },
      },
      { max_depth: 1 },
    )
    const denied = await rig.waitFor((event) => event.type === 'subagent.denied')
    expect(denied.depth).toBe(1)
    expect(denied.data.reason).toMatch(/depth limit reached: a child of depth 2 exceeds max_depth 1/)
    await rig.engine.waitForJob(jobId)
    // The denial reached the child's model as a tool error, and the child still completed.
    const result = toolResult(rig.events, denied)
    expect(result?.data.ok).toBe(false)
    expect(String(result?.data.output)).toContain('depth limit')
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.map((agent) => [agent.depth, agent.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
    ])
  })

  it('warns once at 80% of the job token budget, then (on_budget stop) stops every live agent with token_budget at 100%', async () => {
    rig = createTestRig()
    // The scripted model counts its prompt: about 1,500 tokens for the root's first call, about 700
    // for each of the child's, so 6,000 is passed while the child works and the root waits for it.
    const listing = { delay_ms: 200, tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Slow survey')] }, ...Array.from({ length: 20 }, () => listing), complete('never reached')],
        children: { 'Slow survey': Array.from({ length: 20 }, () => listing) },
      },
      { job_token_budget: 6000, on_budget: 'stop' },
    )
    await rig.engine.waitForJob(jobId)
    const warnings = ofType(rig.events, 'budget.warning')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.data).toMatchObject({ token_budget: 6000, cost_budget: null })
    expect(Number(warnings[0]!.data.share)).toBeGreaterThanOrEqual(0.8)
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('failed')
    expect(agents.map((agent) => [agent.depth, agent.status, agent.terminal_reason])).toEqual([
      [0, 'failed', 'token_budget'],
      [1, 'failed', 'token_budget'],
    ])
    // Nothing ran on past the cap but the calls already under way.
    expect(job.usage.input_tokens + job.usage.output_tokens).toBeLessThan(6000 + 2 * 800)
  })

  it('denies every spawn when max_depth is 0', async () => {
    rig = createTestRig()
    const jobId = rig.start({ root: [{ tool_calls: [taskCall('Anything')] }, complete('done alone')], children: {} }, { max_depth: 0 })
    const denied = await rig.waitFor((event) => event.type === 'subagent.denied')
    expect(denied.data.reason).toMatch(/max_depth 0/)
    await rig.engine.waitForJob(jobId)
    expect((await rig.engine.handlers.getTree({ job_id: jobId })).agents).toHaveLength(1)
  })

  it('queues the 4th child at the default limit of 3 and starts it when a slot frees', async () => {
    rig = createTestRig()
    const children = { A: 300, B: 900, C: 900, D: 100 }
    const jobId = rig.start({
      root: [{ tool_calls: Object.keys(children).map((name) => taskCall(name)) }, complete('all four done')],
      children: Object.fromEntries(
        Object.entries(children).map(([name, delay]) => [name, [complete(exploreResult(`${name} done`), delay)]]),
      ),
    })
    await rig.engine.waitForJob(jobId)
    const queued = ofType(rig.events, 'subagent.queued')
    expect(queued.map((event) => event.data.description)).toEqual(['D'])
    const startOf = (name: string) => rig.events.find((event) => event.type === 'agent.start' && event.data.label === name)!
    const firstEnd = ofType(rig.events, 'agent.end').find((event) => event.depth === 1)!
    expect(startOf('D').seq).toBeGreaterThan(firstEnd.seq)
    expect(['A', 'B', 'C'].every((name) => startOf(name).seq < firstEnd.seq)).toBe(true)
    const { agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(agents.filter((agent) => agent.depth === 1).map((agent) => agent.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ])
  })

  it('holds spawns while paused and starts them on resume', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('One'), taskCall('Two')] }, complete('both done')],
        children: { One: [complete(exploreResult('one'))], Two: [complete(exploreResult('two'))] },
      },
      {},
      { spawnPaused: true },
    )
    await rig.waitFor((event) => event.type === 'subagent.held' && event.data.description === 'Two')
    let tree = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(tree.agents.filter((agent) => agent.depth === 1).map((agent) => agent.status)).toEqual(['held', 'held'])
    expect(ofType(rig.events, 'agent.start')).toHaveLength(1)
    await rig.engine.handlers.setSpawnPaused({ job_id: jobId, paused: false })
    await rig.engine.waitForJob(jobId)
    tree = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(tree.job.status).toBe('completed')
    expect(tree.job.spawn_paused).toBe(false)
    expect(tree.agents.filter((agent) => agent.depth === 1).map((agent) => agent.status)).toEqual(['completed', 'completed'])
  })

  it('gives the parent an error result when the user cancels a held spawn', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Keep'), taskCall('Drop')] }, complete('finished without Drop')],
        children: { Keep: [complete(exploreResult('kept'))], Drop: [complete(exploreResult('never runs'))] },
      },
      {},
      { spawnPaused: true },
    )
    const held = await rig.waitFor((event) => event.type === 'subagent.held' && event.data.description === 'Drop')
    const dropId = String(held.data.child_agent_id)
    expect(await rig.engine.handlers.cancelSpawn({ agent_id: dropId })).toEqual({ cancelled: true })
    await rig.engine.handlers.setSpawnPaused({ job_id: jobId, paused: false })
    await rig.engine.waitForJob(jobId)
    const result = toolResult(rig.events, held)
    expect(result?.data.ok).toBe(false)
    expect(String(result?.data.output)).toContain('spawn cancelled by the user')
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.find((agent) => agent.id === dropId)?.status).toBe('cancelled')
    expect(agents.find((agent) => agent.label === 'Keep')?.status).toBe('completed')
  })

  it('kills a branch: the agent and its descendants end, their processes are gone, and the parent goes on', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Branch', 'general')] }, complete('root finished after the kill')],
        children: {
          Branch: [{ text: 'Delegating the slow part.', tool_calls: [taskCall('Slow leaf')] }, complete('branch done')],
          'Slow leaf': [complete(exploreResult('too slow'), 60_000)],
        },
      },
      { max_depth: 2 },
    )
    const leafStart = await rig.waitFor((event) => event.type === 'agent.start' && event.data.label === 'Slow leaf')
    const branchId = leafStart.parent_id!
    const leafId = leafStart.agent_id!
    await new Promise((resolve) => setTimeout(resolve, 300))
    const pids = [rig.engine.supervisor.pidOf(branchId)!, rig.engine.supervisor.pidOf(leafId)!]
    expect(pids.every((pid) => typeof pid === 'number' && processAlive(pid))).toBe(true)

    const { killed } = await rig.engine.handlers.killAgent({ agent_id: branchId })
    expect(new Set(killed)).toEqual(new Set([branchId, leafId]))
    await rig.engine.waitForJob(jobId)
    expect(pids.filter(processAlive)).toEqual([])

    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.find((agent) => agent.id === branchId)?.status).toBe('killed')
    expect(agents.find((agent) => agent.id === leafId)?.status).toBe('killed')
    const envelope = rig.events.find((event) => event.type === 'subagent.end' && event.data.child_agent_id === branchId)?.data.envelope as {
      status: string
      terminal_reason: string
      result: unknown
    }
    expect(envelope).toMatchObject({ status: 'killed', terminal_reason: 'killed', result: 'Delegating the slow part.' })
    const branchCall = rig.events.find((event) => event.type === 'subagent.start' && event.data.child_agent_id === branchId)
    const rootResult = toolResult(rig.events, branchCall!)
    expect(String(rootResult?.data.output)).toContain('"killed"')
  })

  it('reports a crashed agent process to its parent when the job restarts none (restart_crashed 0)', async () => {
    rig = createTestRig()
    // With the default (one restart) the child would go on in a new process (handlers/crash-restart.test.ts).
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Doomed')] }, complete('root survived')],
        children: { Doomed: [complete(exploreResult('never'), 60_000)] },
      },
      { restart_crashed: 0 },
    )
    const start = await rig.waitFor((event) => event.type === 'agent.start' && event.data.label === 'Doomed')
    await new Promise((resolve) => setTimeout(resolve, 300))
    process.kill(rig.engine.supervisor.pidOf(start.agent_id!)!, 'SIGKILL')
    await rig.engine.waitForJob(jobId)
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.find((agent) => agent.label === 'Doomed')).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
  })

  it('ends a subagent that outlives the wall-clock limit with terminal reason timeout', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Slow')] }, complete('root went on')],
        children: { Slow: [complete(exploreResult('too late'), 60_000)] },
      },
      { subagent_timeout_ms: 1500 },
    )
    await rig.engine.waitForJob(jobId)
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.find((agent) => agent.label === 'Slow')).toMatchObject({ status: 'failed', terminal_reason: 'timeout' })
  })

  it.each([
    [false, 'denied', 'auto_deny'],
    [true, 'approved', 'auto_approve'],
  ])("decides a subagent's risky command from the job's auto-approve flag (%s)", async (autoApprove, decision, by) => {
    rig = createTestRig()
    const jobId = rig.start({
      root: [{ tool_calls: [taskCall('Cleaner', 'worker')] }, complete('root done')],
      children: {
        Cleaner: [{ tool_calls: [{ name: 'bash', arguments: { command: 'rm -r build' } }] }, complete('cleaned')],
      },
    })
    if (autoApprove) await rig.engine.handlers.setAutoApprove({ job_id: jobId, value: true })
    const request = await rig.waitFor((event) => event.type === 'approval.request')
    expect(request.depth).toBe(1)
    expect(request.data).toMatchObject({ tool: 'bash', command: 'rm -r build' })
    const decided = await rig.waitFor((event) => event.type === 'approval.decision')
    expect(decided.data).toMatchObject({ approval_id: request.data.approval_id, decision, by })
    await rig.engine.waitForJob(jobId)
    const result = rig.events.find(
      (event) => event.type === 'tool.result' && event.agent_id === request.agent_id && event.data.name === 'bash',
    )
    expect(String(result?.data.output)).toMatch(decision === 'denied' ? /denied by auto_deny/ : /approved by auto_approve/)
  })
})
