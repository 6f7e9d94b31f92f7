import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { type Engine } from '../engine'
import { anthropicConversations, anthropicView, startFakeAnthropic } from '../providers/testing/fake-anthropic'
import type { ConversationView, FakeServer, RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI } from '../providers/testing/fake-openai'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * Background children (issue 20 §5): `task` with `background: true` returns at once, `await_tasks`
 * waits for their envelopes, envelopes not awaited arrive before the parent's next model call,
 * and a parent may not finish while one runs. Real agent processes, real SQLite, and the real
 * openai and @anthropic-ai/sdk clients against the local streaming servers.
 *
 * Nothing here waits for time to pass: where an order matters (a child must end while its
 * parent works, or only after its parent awaits), the fake server holds a reply until the other
 * agent has reached the point that matters.
 */

const { cleanups, tempDir } = useCleanups('arbor-background-')

interface Rig {
  engine: Engine
  events: TraceEvent[]
  waitFor(predicate: (event: TraceEvent) => boolean, timeoutMs?: number): Promise<TraceEvent>
}

function makeEngine(project: string): Rig {
  return handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project, cleanups })
}

function smallProject(profiles: Record<string, string> = {}): string {
  const project = path.join(tempDir(), 'shop')
  mkdirSync(path.join(project, '.arbor/agents'), { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  for (const [name, text] of Object.entries(profiles)) writeFileSync(path.join(project, '.arbor/agents', `${name}.md`), text)
  return project
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())])

/** A promise and its resolve: a fake server's reply held until a test says so. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = (): void => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

type Reply = Record<string, unknown>
type Turn = Reply | ((view: ConversationView) => Reply)
type Script = { match: string; turns: Turn[] }

/** The same scripted conversations served as OpenAI or as Anthropic streams. */
const providers = {
  openai: {
    view: openaiView,
    async start(route: (request: RecordedRequest) => Promise<Reply | undefined>): Promise<FakeServer<unknown>> {
      return (await startFakeOpenAI({ route: route as never })) as FakeServer<unknown>
    },
    router: (scripts: Script[]) => openaiConversations(scripts as never) as (request: RecordedRequest) => Reply | undefined,
    job: (url: string): Partial<NewJob> => ({ provider: 'openai_compatible', base_url: `${url}/v1`, model: 'llama3.1' }),
    /** The text of every message a request sent, in order. */
    texts: (request: RecordedRequest): string[] =>
      ((request.body as { messages: Array<{ content: unknown }> }).messages ?? []).map((message) => JSON.stringify(message.content)),
  },
  anthropic: {
    view: anthropicView,
    async start(route: (request: RecordedRequest) => Promise<Reply | undefined>): Promise<FakeServer<unknown>> {
      return (await startFakeAnthropic({ route: route as never })) as FakeServer<unknown>
    },
    router: (scripts: Script[]) => anthropicConversations(scripts as never) as (request: RecordedRequest) => Reply | undefined,
    job: (url: string): Partial<NewJob> => ({
      provider: 'anthropic',
      base_url: url,
      model: 'claude-haiku-4-5',
      light_model: 'claude-haiku-4-5',
      no_key: true,
    }),
    texts: (request: RecordedRequest): string[] =>
      ((request.body as { messages: Array<{ content: unknown }> }).messages ?? []).map((message) => JSON.stringify(message.content)),
  },
} as const
type ProviderName = keyof typeof providers

/**
 * Serves `scripts` for `provider`; `hold(view)` may return a promise the reply waits for.
 * Returns the server and the job fields that point a job at it.
 */
async function serve(
  provider: ProviderName,
  scripts: Script[],
  hold: (view: ConversationView) => Promise<void> | undefined = () => undefined,
): Promise<{ server: FakeServer<unknown>; job: NewJob }> {
  const kind = providers[provider]
  const router = kind.router(scripts)
  const server = await kind.start(async (request) => {
    await hold(kind.view(request))
    return router(request)
  })
  cleanups.push(() => server.close())
  return { server, job: { ...defaultNewJob(), task: 'ROOT-TASK: survey the shop', ...kind.job(server.url) } }
}

const call = (name: string, args: Record<string, unknown>): Reply => ({ tool_calls: [{ name, arguments: args }] })
const finish = (result: string): Reply => call('attempt_completion', { result })
const background = (label: string, subagentType = 'general'): Reply =>
  call('task', { description: label, prompt: `${label}: look at README.md and report.`, subagent_type: subagentType, background: true })
/** The `agent_id` in the last tool result (a background `task` call's). */
const startedId = (view: ConversationView): string =>
  (JSON.parse(view.tool_results.at(-1)?.content ?? '{}') as { agent_id: string }).agent_id

async function jobEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events.sort((a, b) => a.seq - b.seq)
}

describe.each(['openai', 'anthropic'] as const)('background children through %s', (provider) => {
  it('task with background: true returns at once with the id; await_tasks returns its envelope; the spawn is marked in the trace', async () => {
    const rig = makeEngine(smallProject())
    const rootAwaits = gate()
    let started: unknown = null
    let awaited: { ended: Array<{ agent_id: string; result: unknown; status: string }>; still_running: unknown[] } | null = null
    const { server, job } = await serve(
      provider,
      [
        { match: 'CHILD-BG', turns: [finish('CHILD-BG-RESULT: the shop has a README')] },
        {
          match: 'ROOT-TASK',
          turns: [
            background('CHILD-BG'),
            (view) => {
              started = JSON.parse(view.tool_results.at(-1)?.content ?? 'null')
              return call('await_tasks', { agent_ids: [startedId(view)] })
            },
            (view) => {
              awaited = JSON.parse(view.tool_results.at(-1)?.content ?? 'null')
              return finish('merged')
            },
          ],
        },
      ],
      // The child answers only once the root has asked for its second step: it ends while the root awaits, not before.
      (view) => {
        if (view.first_user.includes('ROOT-TASK') && view.turn === 1) rootAwaits.open()
        return view.first_user.includes('CHILD-BG') ? rootAwaits.opened : undefined
      },
    )
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    const child = tree.agents.find((agent) => agent.label === 'CHILD-BG')!
    expect(child).toMatchObject({ status: 'completed', parent_id: root_agent_id, background: true })
    expect(tree.agents.find((agent) => agent.id === root_agent_id)?.background).toBeUndefined()
    expect(started).toMatchObject({ agent_id: child.id, status: 'started' })
    expect(awaited).toEqual({
      ended: [expect.objectContaining({ agent_id: child.id, status: 'completed', result: 'CHILD-BG-RESULT: the shop has a README' })],
      still_running: [],
    })
    // The root was offered await_tasks beside task; the child's result reached the root once (the await), never as a delivery too.
    expect(
      providers[provider].view(server.requests.find((request) => providers[provider].view(request).first_user.includes('ROOT-TASK'))!)
        .tools,
    ).toEqual(expect.arrayContaining(['task', 'await_tasks']))
    const rootRequests = server.requests.filter((request) => providers[provider].view(request).first_user.includes('ROOT-TASK'))
    const last = providers[provider].texts(rootRequests.at(-1)!)
    expect(last.filter((text) => text.includes('CHILD-BG-RESULT')).length).toBe(1)
    expect(last.some((text) => text.includes('subagents of yours ended while you worked'))).toBe(false)

    const events = await jobEvents(rig.engine, job_id)
    const onRoot = (type: string) => events.filter((event) => event.type === type && event.agent_id === root_agent_id)
    for (const type of ['subagent.request', 'subagent.start', 'subagent.end']) {
      expect(onRoot(type).map((event) => (event.data as { background?: boolean }).background)).toEqual([true])
    }
    expect(events.find((event) => event.type === 'agent.start' && event.agent_id === child.id)?.data).toMatchObject({ background: true })
  })

  it('an envelope the parent did not await arrives before its next model call as a message marked as Arbor’s, once', async () => {
    const rig = makeEngine(smallProject())
    const rootAsked = gate()
    const childEnded = gate()
    let childId = ''
    const { server, job } = await serve(
      provider,
      [
        { match: 'CHILD-BG', turns: [finish('CHILD-BG-RESULT: two files')] },
        {
          match: 'ROOT-TASK',
          turns: [
            background('CHILD-BG'),
            (view) => {
              childId = startedId(view)
              return call('read_file', { path: 'README.md' })
            },
            finish('done without waiting'),
          ],
        },
      ],
      // The child answers once the root has asked for its second step, and that reply (a read_file) waits
      // until the child has ended: the child ends while the root works, after its last delivery point.
      (view) => {
        if (view.first_user.includes('CHILD-BG')) return rootAsked.opened
        if (view.turn !== 1) return undefined
        rootAsked.open()
        return childEnded.opened
      },
    )
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job })
    void rig.waitFor((event) => event.type === 'agent.end' && event.parent_id === root_agent_id, 30_000).then(() => childEnded.open())
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')
    expect((await rig.engine.handlers.getTree({ job_id })).job.status).toBe('completed')

    const kind = providers[provider]
    const rootRequests = server.requests.filter((request) => kind.view(request).first_user.includes('ROOT-TASK'))
    expect(rootRequests).toHaveLength(3)
    // Not in the request the root made before it ended; in the next, after the read_file result, once.
    expect(kind.texts(rootRequests[1]!).some((text) => text.includes('CHILD-BG-RESULT'))).toBe(false)
    const third = kind.texts(rootRequests[2]!)
    const deliveries = third.filter((text) => text.includes('CHILD-BG-RESULT'))
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]).toContain('subagents of yours ended while you worked')
    expect(deliveries[0]).toContain(childId)
    expect(third.at(-1)).toBe(deliveries[0])
    // The children's requests never hold it.
    const others = server.requests.filter((request) => !kind.view(request).first_user.includes('ROOT-TASK'))
    expect(others.every((request) => !kind.texts(request).some((text) => text.includes('ended while you worked')))).toBe(true)

    // The timeline shows the child's lane overlapping its parent's work: the root's model call that waited for the child's end.
    const { timeline } = await rig.engine.handlers.getTimeline({ job_id })
    const lane = timeline.lanes[childId]!
    expect(lane).toMatchObject({ parent_id: root_agent_id, status: 'completed' })
    const rootBars = timeline.bars[root_agent_id] ?? []
    expect(rootBars.some((bar) => bar.kind === 'model' && bar.start_ms < lane.end_ms! && (bar.end_ms ?? Infinity) >= lane.end_ms!)).toBe(
      true,
    )
    const messages = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'message' && event.data.by === 'arbor')
    expect(messages.map((event) => [event.agent_id, event.data.background_results, typeof event.data.delivered_at])).toEqual([
      [root_agent_id, [childId], 'string'],
    ])
  })
})

describe('a background spawn that waits for a slot', () => {
  it('says so: the call returns queued, and the child starts when a slot frees', async () => {
    const rig = makeEngine(smallProject())
    let statuses: string[] = []
    const { job } = await serve('openai', [
      { match: 'CHILD-ONE', turns: [finish('one done')] },
      { match: 'CHILD-TWO', turns: [finish('two done')] },
      {
        match: 'ROOT-TASK',
        turns: [
          { tool_calls: [background('CHILD-ONE').tool_calls, background('CHILD-TWO').tool_calls].flat() as unknown[] },
          (view) => {
            statuses = view.tool_results.map((result) => (JSON.parse(result.content) as { status: string }).status)
            return call('await_tasks', {})
          },
          call('await_tasks', {}),
          finish('both done'),
        ],
      },
    ])
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: { ...job, max_concurrent_children: 1 } })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    expect(statuses.sort()).toEqual(['queued', 'started'])
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    expect(tree.agents.filter((agent) => agent.background).map((agent) => agent.status)).toEqual(['completed', 'completed'])
    const queued = (await jobEvents(rig.engine, job_id)).filter(
      (event) => event.type === 'subagent.queued' && event.agent_id === root_agent_id,
    )
    expect(queued.map((event) => event.data.background)).toEqual([true])
  })
})

describe('finishing with background children running', () => {
  it('refuses attempt_completion and a plain answer, naming the children by id and label; after await_tasks the parent finishes', async () => {
    const rig = makeEngine(smallProject())
    const release = gate()
    const seen: { answer?: string; completion?: string } = {}
    let childId = ''
    const { job } = await serve(
      'openai',
      [
        { match: 'CHILD-LONG', turns: [finish('CHILD-LONG done')] },
        {
          match: 'ROOT-TASK',
          turns: [
            background('CHILD-LONG'),
            (view) => {
              childId = startedId(view)
              return { text: 'All done, I think.' }
            },
            finish('too early'),
            (view) => {
              seen.completion = view.tool_results.at(-1)?.content
              return call('await_tasks', {})
            },
            finish('now done'),
          ],
        },
      ],
      (view) => {
        if (view.first_user.includes('ROOT-TASK') && view.turn === 3) release.open()
        return view.first_user.includes('CHILD-LONG') ? release.opened : undefined
      },
    )
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    expect(tree.agents.every((agent) => agent.status === 'completed')).toBe(true)
    const events = await jobEvents(rig.engine, job_id)
    const refusal = events.find((event) => event.type === 'message' && event.data.by === 'arbor' && event.agent_id === root_agent_id)
    seen.answer = refusal?.data.content as string
    for (const text of [seen.answer, seen.completion]) {
      expect(text).toContain(childId)
      expect(text).toContain('"CHILD-LONG"')
      expect(text).toContain('await_tasks')
    }
    expect(seen.completion).toMatch(/^Error: you cannot finish while background subagents still run/)
    const rootEnd = events.find((event) => event.type === 'agent.end' && event.agent_id === root_agent_id)
    expect(rootEnd?.data).toMatchObject({ status: 'completed', result: 'now done' })
  })
})

describe('bad input', () => {
  it('await_tasks with no background children, or with ids that are not its own, is a tool error; a profile that cannot delegate has neither tool', async () => {
    const rig = makeEngine(smallProject())
    const results: Record<string, string | undefined> = {}
    let workerTools: string[] = []
    const { job } = await serve('openai', [
      {
        match: 'WORKER-W',
        turns: [
          (view) => {
            workerTools = view.tools
            return {
              tool_calls: [{ name: 'task', arguments: { description: 'X', prompt: 'X', subagent_type: 'general', background: true } }],
            }
          },
          (view) => {
            results.workerTask = view.tool_results.at(-1)?.content
            return call('await_tasks', {})
          },
          (view) => {
            results.workerAwait = view.tool_results.at(-1)?.content
            return finish('worker done')
          },
        ],
      },
      {
        match: 'ROOT-TASK',
        turns: [
          call('await_tasks', {}),
          (view) => {
            results.none = view.tool_results.at(-1)?.content
            return call('task', {
              description: 'WORKER-W',
              prompt: 'WORKER-W: try to delegate.',
              subagent_type: 'worker',
              background: true,
            })
          },
          (view) => call('await_tasks', { agent_ids: ['agent_nobody', startedId(view)], timeout_s: 5 }),
          (view) => {
            results.unknown = view.tool_results.at(-1)?.content
            return call('await_tasks', { timeout_s: 0 })
          },
          (view) => {
            results.zero = view.tool_results.at(-1)?.content
            return call('await_tasks', {})
          },
          finish('root done'),
        ],
      },
    ])
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: { ...job, max_depth: 2 } })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    expect(results.none).toMatch(/^Error: you have no background subagents to wait for/)
    expect(results.unknown).toMatch(/^Error: agent_nobody is not your background subagent; yours: agent_\w+ \(WORKER-W\)/)
    expect(results.zero).toMatch(/^Error: invalid arguments for await_tasks/)
    expect(workerTools).not.toContain('task')
    expect(workerTools).not.toContain('await_tasks')
    expect(results.workerTask).toMatch(/^Error: the tool "task" is not allowed for this agent/)
    expect(results.workerAwait).toMatch(/^Error: the tool "await_tasks" is not allowed for this agent/)
    // Nothing was spawned by the worker, and nothing else changed.
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.map((agent) => agent.label).sort()).toEqual(['WORKER-W', 'root'])
    expect(tree.job.status).toBe('completed')
  })
})

describe('a parent that ends', () => {
  it('killed: its background children stop with it, and every end is recorded', async () => {
    const rig = makeEngine(smallProject())
    const { job } = await serve('openai', [
      { match: 'CHILD-BG', turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] }, finish('never')] },
      { match: 'ROOT-TASK', turns: [background('CHILD-BG'), call('await_tasks', {}), finish('never')] },
    ])
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job })
    const sleeping = await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash', 30_000)
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id && event.data.name === 'await_tasks')
    await rig.engine.handlers.killAgent({ agent_id: root_agent_id })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.map((agent) => [agent.label, agent.status])).toEqual([
      ['root', 'killed'],
      ['CHILD-BG', 'killed'],
    ])
    const events = await jobEvents(rig.engine, job_id)
    // The kill ended the root's wait: its await_tasks call returned (an error) instead of hanging until the process was forced.
    expect(
      events.find((event) => event.type === 'tool.result' && event.agent_id === root_agent_id && event.data.name === 'await_tasks')?.data,
    ).toMatchObject({
      ok: false,
    })
    expect(
      events
        .filter((event) => event.type === 'agent.end')
        .map((event) => event.agent_id)
        .sort(),
    ).toEqual([root_agent_id, sleeping.agent_id].sort())
    expect(events.find((event) => event.type === 'subagent.end' && event.agent_id === root_agent_id)?.data).toMatchObject({
      child_agent_id: sleeping.agent_id,
      background: true,
    })
  })

  it('a parent that ends on its own (max_steps) stops its background child; the child’s end and the parent’s subagent.end are still recorded', async () => {
    const delegator = [
      '---',
      'name: delegator',
      'description: Starts a background helper, then runs out of steps',
      'tools: [task, read_file]',
      'can_delegate: true',
      'max_steps: 2',
      '---',
      'Delegate in the background.',
      '',
    ].join('\n')
    const rig = makeEngine(smallProject({ delegator }))
    const { job } = await serve('openai', [
      { match: 'GRANDCHILD-G', turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] }, finish('never')] },
      { match: 'MIDDLE-M', turns: [background('GRANDCHILD-G'), call('read_file', { path: 'README.md' })] },
      {
        match: 'ROOT-TASK',
        turns: [call('task', { description: 'MIDDLE-M', prompt: 'MIDDLE-M: delegate.', subagent_type: 'delegator' }), finish('root done')],
      },
    ])
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: { ...job, max_depth: 2 } })
    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')

    const tree = await rig.engine.handlers.getTree({ job_id })
    const byLabel = Object.fromEntries(tree.agents.map((agent) => [agent.label, agent]))
    expect(byLabel['MIDDLE-M']).toMatchObject({ status: 'failed', terminal_reason: 'max_steps' })
    expect(byLabel['GRANDCHILD-G']).toMatchObject({ status: 'cancelled', terminal_reason: 'cancelled', background: true })
    expect(tree.job.status).toBe('completed')
    const events = await jobEvents(rig.engine, job_id)
    const middleEnd = events.find((event) => event.type === 'agent.end' && event.agent_id === byLabel['MIDDLE-M']!.id)!
    const grandchildEnd = events.find((event) => event.type === 'agent.end' && event.agent_id === byLabel['GRANDCHILD-G']!.id)!
    const recorded = events.find((event) => event.type === 'subagent.end' && event.agent_id === byLabel['MIDDLE-M']!.id)!
    expect(grandchildEnd.seq).toBeGreaterThan(middleEnd.seq)
    expect(recorded.data).toMatchObject({ child_agent_id: byLabel['GRANDCHILD-G']!.id, envelope: { status: 'cancelled' } })
  })
})
