import { afterEach, describe, expect, it } from 'vitest'
import type { TraceEvent } from '../trace/events'
import { addUsage, emptyUsage, type Usage } from '../trace/usage'
import { killLeftovers, newMarker, processesWith, waitForNoneLeft, waitUntil } from '../testing/processes'
import { complete, createTestRig, exploreResult, processAlive, taskCall, type TestRig } from './testing'

/**
 * An agent process SIGKILLed mid-step (nothing of it can clean up), in a job that does not
 * restart crashed agents (restart_crashed 0; handlers/crash-restart.test.ts has the restarts): its
 * parent hears `crashed`, the job still completes, usage still adds up, and the `bash` command it was running is gone,
 * whether the command ran in the OS sandbox or without it (then only the supervisor's record of
 * the agent's process groups can end it).
 */
let rig: TestRig | undefined
let leftovers: { marker: string; pids: number[] } | undefined
afterEach(async () => {
  if (leftovers) killLeftovers(leftovers.marker, leftovers.pids)
  leftovers = undefined
  await rig?.engine.close()
  rig = undefined
})

const sumUsage = (events: TraceEvent[], type: string): Usage =>
  events.filter((event) => event.type === type).reduce((total, event) => addUsage(total, event.data.usage as Usage), emptyUsage())

/** The child's end as its parent heard it. */
const endAsHeard = (events: TraceEvent[], childId: string) =>
  events.find((event) => event.type === 'subagent.end' && event.data.child_agent_id === childId)?.data.envelope as
    { status: string; terminal_reason: string } | undefined

function expectUsageAddsUp(events: TraceEvent[]): void {
  const jobEnd = events.find((event) => event.type === 'job.end')
  expect(jobEnd?.data.usage).toEqual(sumUsage(events, 'agent.end'))
  expect(sumUsage(events, 'agent.end')).toEqual(sumUsage(events, 'llm.call'))
}

describe('an agent process SIGKILLed mid-step', () => {
  it.each([
    ['in the sandbox', false],
    ['without the sandbox', true],
  ])('while its bash command runs (%s): the parent gets crashed, the job completes, the command is gone', async (_mode, noSandbox) => {
    const { marker, sleep } = newMarker()
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Sleeper', 'worker'), taskCall('Thinker')] }, complete('root went on')],
        children: {
          Sleeper: [{ tool_calls: [{ name: 'bash', arguments: { command: sleep, timeout_ms: 600_000 } }] }, complete('never reached')],
          Thinker: [complete(exploreResult('thought it through'), 1500)],
        },
      },
      { no_sandbox: noSandbox, restart_crashed: 0 },
    )
    const start = await rig.waitFor((event) => event.type === 'agent.start' && event.data.label === 'Sleeper')
    const sleeperId = start.agent_id!
    const pid = rig.engine.supervisor.pidOf(sleeperId)!
    leftovers = { marker, pids: [pid] }
    // The command is running: `sleep` itself (not only its sandbox or shell) carries the marker.
    await waitUntil(() => processesWith(marker).some((info) => info.args.startsWith('sleep ')), { what: `${sleep} runs` })
    expect(processesWith(marker).some((info) => /\bbwrap\b/.test(info.args))).toBe(!noSandbox)

    process.kill(pid, 'SIGKILL')
    await rig.engine.waitForJob(jobId)

    expect(endAsHeard(rig.events, sleeperId)).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
    const errors = rig.events.filter((event) => event.type === 'error' && event.agent_id === sleeperId).map((event) => event.data.message)
    expect(errors).toEqual(['agent process exited unexpectedly (code null, signal SIGKILL)'])
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.map((agent) => [agent.label, agent.status, agent.terminal_reason])).toEqual([
      ['root', 'completed', 'completed'],
      ['Sleeper', 'failed', 'crashed'],
      ['Thinker', 'completed', 'completed'],
    ])
    expectUsageAddsUp(rig.events)
    await waitForNoneLeft(marker, [pid])
  })

  it('while the supervisor streams its model call: the call is dropped, the parent gets crashed, usage adds up', async () => {
    rig = createTestRig()
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('Slow thinker'), taskCall('Quick')] }, complete('root went on')],
        children: {
          'Slow thinker': [{ delay_ms: 600_000, tool_calls: [{ name: 'list_files', arguments: {} }] }],
          Quick: [complete(exploreResult('quick answer'), 200)],
        },
      },
      { restart_crashed: 0 },
    )
    const start = await rig.waitFor((event) => event.type === 'agent.start' && event.data.label === 'Slow thinker')
    const slowId = start.agent_id!
    // Its first model call is under way in the supervisor: the system prompt and task are stored once it was sent.
    await rig.waitFor((event) => event.type === 'message' && event.agent_id === slowId && event.data.role === 'user')
    const pid = rig.engine.supervisor.pidOf(slowId)!
    process.kill(pid, 'SIGKILL')
    await rig.engine.waitForJob(jobId)

    expect(endAsHeard(rig.events, slowId)).toMatchObject({ status: 'failed', terminal_reason: 'crashed' })
    expect(rig.events.filter((event) => event.type === 'llm.call' && event.agent_id === slowId)).toEqual([])
    const { job } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expectUsageAddsUp(rig.events)
    expect(processAlive(pid)).toBe(false)
  })
})
