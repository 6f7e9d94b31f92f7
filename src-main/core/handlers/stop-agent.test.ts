import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { type Engine } from '../engine'
import type { ConversationView } from '../providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI } from '../providers/testing/fake-openai'
import type { EventOf, TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * Stopping an agent gently (API stopAgent, mode wrap_up) and hard (mode kill), through the
 * dispatcher as IPC and the WebSocket call it, with real agent processes and the real openai SDK
 * against a local server that streams the Chat Completions wire format. The scripted model
 * finishes only when its request carries the wrap-up message, so a test passes only if the
 * message reached it.
 */

const { cleanups, tempDir } = useCleanups('arbor-stop-agent-')

function makeEngine() {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(project, { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  return { project, ...handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, waitMs: 30_000, cleanups }) }
}

const job = (baseUrl: string, overrides: Partial<NewJob> = {}): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: survey the shop',
  provider: 'openai_compatible',
  base_url: baseUrl,
  model: 'llama3.1',
  ...overrides,
})

const wrapUpText = 'Wrap up now'
/** The request holds the user's wrap-up message (the model finishes only then). */
const toldToWrapUp = (_view: ConversationView, body: unknown): boolean => JSON.stringify(body).includes(wrapUpText)
const bash = (command: string) => ({ name: 'bash', arguments: { command } })

async function jobEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events.sort((a, b) => a.seq - b.seq)
}

/** Model calls an agent made after it took the wrap-up in. */
function stepsAfterWrapUp(events: TraceEvent[], agentId: string): number {
  const own = events.filter((event) => event.agent_id === agentId)
  const delivered = own.findIndex((event) => event.type === 'agent.wrap_up' && event.data.phase === 'delivered')
  expect(delivered, `agent ${agentId} took the wrap-up in`).toBeGreaterThanOrEqual(0)
  return own.slice(delivered).filter((event) => event.type === 'llm.call').length
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('wrapping up an agent', () => {
  it('wraps up a parent with two running children: children first, all three end with envelopes marked wrapped_up, within their steps', async () => {
    const rig = makeEngine()
    const spawn = (name: string) => ({
      name: 'task',
      arguments: { description: name, prompt: `${name}: look around.`, subagent_type: 'worker' },
    })
    const server = await startFakeOpenAI({
      route: (request) => {
        const view = openaiView(request)
        const child = ['CHILD-A', 'CHILD-B'].find((name) => view.first_user.includes(name))
        // Each child sleeps, then keeps working unless its request says to wrap up.
        if (child && view.turn === 0) return { text: `${child} starts.`, tool_calls: [bash('sleep 2')] }
        if (child) {
          return toldToWrapUp(view, request.body)
            ? { tool_calls: [{ name: 'attempt_completion', arguments: { result: `${child}: partial report` } }] }
            : { text: `${child} keeps going.`, tool_calls: [bash('sleep 1')] }
        }
        if (view.turn === 0) return { text: 'Two children.', tool_calls: [spawn('CHILD-A'), spawn('CHILD-B')] }
        // The root answers in plain text once told to wrap up (its children's envelopes are in).
        return toldToWrapUp(view, request.body)
          ? { text: 'ROOT: wrapped up with what the children had.' }
          : { tool_calls: [bash('sleep 1')] }
      },
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    const sleeping = () => rig.events.filter((event) => event.type === 'tool.call' && event.depth === 1 && event.data.name === 'bash')
    await waitUntil(() => new Set(sleeping().map((event) => event.agent_id)).size === 2, 'both children to run their command')
    const children = [...new Set(sleeping().map((event) => event.agent_id!))]

    const first = await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'wrap_up' })
    expect(first).toMatchObject({ ok: true, value: { mode: 'wrap_up', cancelled: [], already: false } })
    const told = (first as { value: { agents: string[] } }).value.agents
    // Children first, then the root; the children in either order.
    expect(told.at(-1)).toBe(root_agent_id)
    expect(new Set(told.slice(0, 2))).toEqual(new Set(children))
    // Asking again changes nothing, and says so.
    const again = await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'wrap_up' })
    expect(again).toMatchObject({ ok: true, value: { agents: [], already: true, note: expect.stringContaining('already wrapping up') } })

    await rig.engine.waitForJob(job_id)
    const events = await jobEvents(rig.engine, job_id)
    const ends = events.filter((event): event is EventOf<'agent.end'> => event.type === 'agent.end')
    expect(ends.map((event) => [event.agent_id, event.data.status, event.data.wrapped_up]).sort()).toEqual(
      [...children, root_agent_id].map((id) => [id, 'completed', true]).sort(),
    )
    expect(ends.find((event) => event.agent_id === root_agent_id)?.data.result).toBe('ROOT: wrapped up with what the children had.')
    for (const id of [...children, root_agent_id]) expect(stepsAfterWrapUp(events, id)).toBeLessThanOrEqual(2)
    // One request and one delivery each, the request recorded with who asked and for which agent.
    const wrapUps = events.filter((event): event is EventOf<'agent.wrap_up'> => event.type === 'agent.wrap_up')
    expect(
      wrapUps
        .filter((event) => event.data.phase === 'requested')
        .map((event) => event.agent_id)
        .sort(),
    ).toEqual([...children, root_agent_id].sort())
    for (const event of wrapUps) expect(event.data).toMatchObject({ by: 'user', target: root_agent_id })
    const deliveries = wrapUps.filter((event) => event.data.phase === 'delivered')
    expect(deliveries.map((event) => event.agent_id).sort()).toEqual([...children, root_agent_id].sort())
    for (const event of deliveries) expect(event.data).toMatchObject({ steps_allowed: 2, delivered_at: expect.any(String) })

    // The parent got its children's envelopes marked wrapped_up, in its trace and in its model's request.
    const childEnds = events.filter((event): event is EventOf<'subagent.end'> => event.type === 'subagent.end')
    expect(childEnds.map((event) => [event.data.child_agent_id, event.data.envelope.wrapped_up]).sort()).toEqual(
      children.map((id) => [id, true]).sort(),
    )
    const rootLast = server.requests.filter((request) => !/CHILD-/.test(openaiView(request).first_user)).at(-1)!
    const toolResults = openaiView(rootLast).tool_results.map((result) => JSON.parse(result.content) as { wrapped_up?: boolean })
    expect(toolResults.map((envelope) => envelope.wrapped_up)).toEqual([true, true])
  })

  it('tells the model once, in its next request after the running command, as a user message marked as the user’s', async () => {
    const rig = makeEngine()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'ROOT-TASK',
          turns: [
            { text: 'Sleeping first.', tool_calls: [bash('sleep 2')] },
            (view) => (view.tool_results.length > 0 ? { text: 'ROOT: done, as asked.' } : { text: 'unexpected' }),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id)
    expect(await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'wrap_up' })).toMatchObject({ ok: true })
    await rig.engine.waitForJob(job_id)

    const bodies = server.requests.map((request) => JSON.stringify(request.body))
    expect(bodies).toHaveLength(2)
    expect(bodies[0]).not.toContain(wrapUpText)
    const messages = (server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages
    const told = messages.filter((message) => message.content.includes(wrapUpText))
    expect(told).toHaveLength(1)
    // After the command's result, the last message, from the user, naming its steps.
    expect(messages.map((message) => message.role).slice(-2)).toEqual(['tool', 'user'])
    expect(messages.at(-1)?.content).toContain('A message from the user')
    expect(messages.at(-1)?.content).toContain('at most 2 more steps')
    const events = await jobEvents(rig.engine, job_id)
    const recorded = events.filter((event) => event.type === 'message' && typeof event.data.wrap_up_id === 'string')
    expect(recorded).toHaveLength(1)
    expect(recorded[0]!.data).toMatchObject({ role: 'user', by: 'user', sent_at: expect.any(String), delivered_at: expect.any(String) })
    expect(events.find((event) => event.type === 'agent.end')?.data).toMatchObject({ status: 'completed', wrapped_up: true })
  })

  it('ends an agent that ignores the wrap-up as killed after exactly 2 more steps, with its last output', async () => {
    const rig = makeEngine()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'ROOT-TASK',
          turns: [{ text: 'STEP-0', tool_calls: [bash('sleep 2')] }],
          // Whatever it is told, it keeps calling tools.
          then: { text: 'STILL-WORKING', tool_calls: [bash('echo more')] },
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id)
    expect(await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'wrap_up' })).toMatchObject({ ok: true })
    await rig.engine.waitForJob(job_id)

    const events = await jobEvents(rig.engine, job_id)
    expect(stepsAfterWrapUp(events, root_agent_id)).toBe(2)
    // Its first step, then two: the third call never reached the model.
    expect(server.requests).toHaveLength(3)
    expect(JSON.stringify(server.requests[2]!.body)).toContain(wrapUpText)
    const end = events.find((event): event is EventOf<'agent.end'> => event.type === 'agent.end')!
    expect(end.data).toMatchObject({ status: 'killed', terminal_reason: 'killed', result: 'STILL-WORKING', wrapped_up: true, steps: 3 })
    expect(end.data.summary).toContain('did not finish within the 2 steps')
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job).toMatchObject({ status: 'cancelled', end_reason: 'killed' })
  })

  it('cancels a queued child that never started, and its parent’s task call says why', async () => {
    const rig = makeEngine()
    const spawn = (name: string) => ({
      name: 'task',
      arguments: { description: name, prompt: `${name}: look around.`, subagent_type: 'worker' },
    })
    const server = await startFakeOpenAI({
      route: (request) => {
        const view = openaiView(request)
        if (view.first_user.includes('CHILD-')) {
          if (toldToWrapUp(view, request.body))
            return { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'child report' } }] }
          return { tool_calls: [bash('sleep 2')] }
        }
        if (view.turn === 0) return { tool_calls: [spawn('CHILD-RUNS'), spawn('CHILD-QUEUED')] }
        return { text: 'ROOT: done.' }
      },
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: job(`${server.url}/v1`, { max_concurrent_children: 1 }),
    })
    const queued = await rig.waitFor((event) => event.type === 'subagent.queued')
    await rig.waitFor((event) => event.type === 'tool.call' && event.depth === 1)
    const queuedId = (queued as EventOf<'subagent.queued'>).data.child_agent_id
    const answer = await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'wrap_up' })
    expect(answer).toMatchObject({ ok: true, value: { cancelled: [queuedId] } })
    await rig.engine.waitForJob(job_id)
    const events = await jobEvents(rig.engine, job_id)
    expect(events.filter((event) => event.type === 'agent.start' && event.agent_id === queuedId)).toEqual([])
    const rootRequest = server.requests.filter((request) => !openaiView(request).first_user.includes('CHILD-')).at(-1)!
    expect(
      openaiView(rootRequest)
        .tool_results.map((result) => result.content)
        .join('\n'),
    ).toContain('spawn cancelled: its parent is wrapping up')
  })
})

describe('stopAgent: bad input', () => {
  it('refuses an unknown agent, a bad mode, an ended agent and an agent of an ended job, with a clear error, changing nothing', async () => {
    const rig = makeEngine()
    const quick = { name: 'task', arguments: { description: 'CHILD-QUICK', prompt: 'CHILD-QUICK: answer.', subagent_type: 'worker' } }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-QUICK', turns: [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: 'quick' } }] }] },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [quick] }, { tool_calls: [bash('sleep 30')] }, { text: 'never' }] },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id && event.data.name === 'bash')
    const quickChild = rig.events.find((event) => event.type === 'agent.end' && event.depth === 1)!.agent_id!
    const before = rig.events.length

    expect(await rig.dispatch('stopAgent', { agent_id: 'agent_nobody', mode: 'wrap_up' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringContaining('agent_nobody') },
    })
    for (const input of [
      { agent_id: root_agent_id, mode: 'gently' },
      { agent_id: root_agent_id },
      { agent_id: root_agent_id, mode: 'wrap_up', extra: true },
      { agent_id: '', mode: 'kill' },
    ]) {
      expect(await rig.dispatch('stopAgent', input)).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    }
    // A child that has ended, in a job that still runs.
    for (const mode of ['wrap_up', 'kill'] as const) {
      expect(await rig.dispatch('stopAgent', { agent_id: quickChild, mode })).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringContaining('has ended (completed)') },
      })
    }
    expect(rig.events.length).toBe(before)

    // Kill mode ends it at once, as killAgent does; then both modes refuse the ended job's agents.
    expect(await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode: 'kill' })).toMatchObject({
      ok: true,
      value: { mode: 'kill', agents: [root_agent_id] },
    })
    await rig.engine.waitForJob(job_id)
    const ended = (await jobEvents(rig.engine, job_id)).length
    for (const mode of ['wrap_up', 'kill'] as const) {
      expect(await rig.dispatch('stopAgent', { agent_id: root_agent_id, mode })).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringMatching(/job_\S+ is cancelled: only a running job's agents can be stopped/) },
      })
    }
    expect(await jobEvents(rig.engine, job_id)).toHaveLength(ended)
  })
})
