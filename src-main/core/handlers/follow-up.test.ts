import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDispatcher } from '../api/dispatcher'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { anthropicConversations, startFakeAnthropic } from '../providers/testing/fake-anthropic'
import type { ConversationView, RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../providers/testing/fake-openai'
import { exportJob } from '../store/export'
import { openDatabase } from '../store/database'
import { jsonlFormat } from '../store/export'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * Follow-ups: a job that ended is continued with a new message, the root (or a child) resuming
 * with its whole history, rebuilt from the trace, in the same job and tree. Real agent processes,
 * the real SDKs against local servers that stream their wire formats, a real SQLite file.
 */

const { cleanups, tempDir } = useCleanups('arbor-follow-up-')

const makeEngine = (dbFile: string, project: string) => handlerEngine({ dbFile, project, waitMs: 15_000, cleanups })

function project(): { dir: string; project: string; dbFile: string } {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n\nSells things.\n')
  return { dir, project, dbFile: path.join(dir, 'arbor.db') }
}

const job = (overrides: Partial<NewJob>): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: what does this shop sell?',
  provider: 'openai_compatible',
  model: 'llama3.1',
  max_depth: 1,
  ...overrides,
})

const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const delegate = {
  tool_calls: [
    { name: 'task', arguments: { description: 'read the readme', prompt: 'CHILD-X: read README.md', subagent_type: 'general' } },
  ],
}
const childAnswer = finish('CHILD-ANSWER: it sells things')

const messagesOf = (request: RecordedRequest): unknown[] => (request.body as { messages: unknown[] }).messages
const firstUser = (request: RecordedRequest): string => {
  const messages = messagesOf(request) as Array<{ role: string; content: unknown }>
  const user = messages.find((message) => message.role === 'user')
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content)
}
const rootRequests = (requests: RecordedRequest[]) => requests.filter((request) => firstUser(request).includes('ROOT-TASK'))
const withoutCacheMarks = (messages: unknown[]): unknown[] =>
  JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === 'cache_control' ? undefined : value))) as unknown[]
const endsOf = (events: TraceEvent[], jobId: string) => events.filter((event) => event.type === 'job.end' && event.job_id === jobId)

describe('following up a job that ended', () => {
  it('the root resumes with its earlier history byte for byte plus the new text; same job and tree, totals carried on (OpenAI)', async () => {
    const where = project()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-X', turns: [childAnswer, finish('CHILD-AGAIN')] },
        // Slow to answer the follow-up: a second one sent meanwhile finds it running.
        { match: 'ROOT-TASK', turns: [delegate, finish('FIRST-ANSWER'), { delay_ms: 1000, ...finish('SECOND-ANSWER') }] },
      ]),
    })
    cleanups.push(() => server.close())
    const rig = makeEngine(where.dbFile, where.project)
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: job({ base_url: `${server.url}/v1` }),
    })
    await rig.engine.waitForJob(job_id)
    const before = rootRequests(server.requests)
    expect(before).toHaveLength(2)
    const firstEnd = endsOf(rig.events, job_id)[0]!
    expect(firstEnd.type === 'job.end' && firstEnd.data.status).toBe('completed')

    const resumed = await dispatch('followUp', { job_id, text: 'FOLLOW-UP: and what does it not sell?' })
    expect(resumed).toEqual({ ok: true, value: { job_id, agent_id: root_agent_id } })
    // Once it runs again, a second follow-up is refused: a running agent takes a message instead.
    expect(await dispatch('followUp', { job_id, text: 'again' })).toMatchObject({ ok: false, error: { code: 'conflict' } })
    await rig.waitFor((event) => event.type === 'job.end' && event.job_id === job_id && event.seq > firstEnd.seq)

    const after = rootRequests(server.requests)
    expect(after).toHaveLength(3)
    const last = messagesOf(before[1]!)
    const next = messagesOf(after[2]!)
    // The earlier request, byte for byte, then the reply that ended it, its result, and the new text.
    expect(JSON.stringify(next.slice(0, last.length))).toBe(JSON.stringify(last))
    expect(next.slice(last.length)).toEqual([
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [expect.objectContaining({ function: expect.objectContaining({ name: 'attempt_completion' }) })],
      }),
      { role: 'tool', content: 'Result received.', tool_call_id: 'call_t1_0' },
      { role: 'user', content: 'FOLLOW-UP: and what does it not sell?' },
    ])
    // Nothing but the root asked again: the child stayed ended.
    expect(server.requests.filter((request) => firstUser(request).includes('CHILD-X'))).toHaveLength(1)

    // One job, one tree: the root is the same node, running then completed again, its totals the sum of its calls.
    const jobs = (await rig.engine.handlers.listJobs({})).jobs
    expect(jobs.map((each) => [each.id, each.status])).toEqual([[job_id, 'completed']])
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.map((agent) => [agent.id === root_agent_id, agent.status])).toEqual([
      [true, 'completed'],
      [false, 'completed'],
    ])
    const root = tree.agents[0]!
    const calls = rig.events.filter((event) => event.type === 'llm.call' && event.agent_id === root_agent_id)
    expect(calls).toHaveLength(3)
    expect(root.steps).toBe(3)
    expect(root.usage.input_tokens).toBe(
      calls.reduce((sum, call) => sum + (call.type === 'llm.call' ? call.data.usage.input_tokens : 0), 0),
    )
    expect(tree.answer).toContain('SECOND-ANSWER')
    const resume = rig.events.find((event) => event.type === 'agent.resume')
    expect(resume).toMatchObject({
      agent_id: root_agent_id,
      data: { by: 'user', text: 'FOLLOW-UP: and what does it not sell?', previous_status: 'completed' },
    })
    expect(rig.events.filter((event) => event.type === 'agent.start' && event.agent_id === root_agent_id)).toHaveLength(1)
    // The second job.end sums every agent's usage, the first run's included.
    const secondEnd = endsOf(rig.events, job_id)[1]!
    const allCalls = rig.events.filter((event) => event.type === 'llm.call' && event.job_id === job_id)
    expect(secondEnd.type === 'job.end' && secondEnd.data.usage.input_tokens).toBe(
      allCalls.reduce((sum, call) => sum + (call.type === 'llm.call' ? call.data.usage.input_tokens : 0), 0),
    )

    // OTLP: one trace; the job's span lasts to its last end; the follow-up is a second invoke_agent
    // span of the root, after the first, with its calls under it.
    const otlpFile = path.join(where.dir, 'trace.otlp.json')
    await rig.engine.exportTrace(job_id, otlpFile, 'otlp')
    type Span = { spanId: string; parentSpanId?: string; name: string; startTimeUnixNano: string; endTimeUnixNano: string }
    const spans = (JSON.parse(readFileSync(otlpFile, 'utf8')) as { resourceSpans: [{ scopeSpans: [{ spans: Span[] }] }] }).resourceSpans[0]
      .scopeSpans[0].spans
    const named = (name: string) => spans.filter((span) => span.name.startsWith(name))
    const [workflow] = named('invoke_workflow')
    const [firstRun, followRun] = [named('invoke_agent root')[0]!, named('invoke_agent root (follow-up)')[0]!]
    expect(named('invoke_agent root')).toHaveLength(2)
    expect(firstRun.spanId).not.toBe(followRun.spanId)
    expect(followRun.parentSpanId).toBe(workflow!.spanId)
    expect(BigInt(followRun.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(firstRun.endTimeUnixNano))
    expect(BigInt(workflow!.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(followRun.endTimeUnixNano))
    const chats = named('chat ').map((span) => span.parentSpanId)
    expect(chats.filter((parent) => parent === followRun.spanId)).toHaveLength(1)
    expect(chats.filter((parent) => parent === firstRun.spanId)).toHaveLength(2)

    // The exported trace holds both runs and imports again.
    const out = path.join(where.dir, 'trace.jsonl')
    const db = openDatabase(where.dbFile)
    cleanups.push(() => void db.close())
    await exportJob(db, job_id, out, jsonlFormat())
    const imported = await makeEngine(path.join(tempDir(), 'other.db'), where.project).engine.handlers.importTrace({ path: out })
    expect(imported).toMatchObject({ existing: false })
  })

  it('a job of an earlier session is read back and continued in a new one, on the Anthropic API', async () => {
    const where = project()
    const server = await startFakeAnthropic({
      route: anthropicConversations([
        { match: 'CHILD-X', turns: [childAnswer] },
        { match: 'ROOT-TASK', turns: [delegate, { text: 'FIRST-ANSWER' }, { text: 'SECOND-ANSWER' }] },
      ]),
    })
    cleanups.push(() => server.close())
    const first = makeEngine(where.dbFile, where.project)
    const { job_id, root_agent_id } = await first.engine.handlers.startJob({
      kind: 'agent',
      job: job({ provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: server.url, no_key: true }),
    })
    await first.engine.waitForJob(job_id)
    await first.engine.close()
    const before = rootRequests(server.requests)
    expect(before).toHaveLength(2)

    const second = makeEngine(where.dbFile, where.project)
    const resumed = await second.engine.handlers.followUp({ job_id, text: 'FOLLOW-UP: and in French?' })
    expect(resumed).toEqual({ job_id, agent_id: root_agent_id })
    await second.waitFor((event) => event.type === 'job.end' && event.job_id === job_id)
    const after = rootRequests(server.requests)
    expect(after).toHaveLength(3)
    // The cache breakpoint moves to the newest message on every call, as it would have had the
    // agent never stopped; the messages under it are the same bytes.
    const last = withoutCacheMarks(messagesOf(before[1]!))
    const next = withoutCacheMarks(messagesOf(after[2]!))
    expect(JSON.stringify(next.slice(0, last.length))).toBe(JSON.stringify(last))
    expect(next.slice(last.length)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'FIRST-ANSWER' }] },
      { role: 'user', content: [{ type: 'text', text: 'FOLLOW-UP: and in French?' }] },
    ])
    // The system prompt went again as it was.
    expect((after[2]!.body as { system: unknown }).system).toEqual((before[1]!.body as { system: unknown }).system)
    const tree = await second.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    expect(tree.answer).toContain('SECOND-ANSWER')
    expect(tree.agents.find((agent) => agent.id === root_agent_id)?.steps).toBe(3)
  })

  it('a finished child is continued on its own after the job ended; its new result is on its node', async () => {
    const where = project()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-X', turns: [childAnswer, finish('CHILD-AGAIN: and cheaper ones')] },
        { match: 'ROOT-TASK', turns: [delegate, finish('FIRST-ANSWER')] },
      ]),
    })
    cleanups.push(() => server.close())
    const rig = makeEngine(where.dbFile, where.project)
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job({ base_url: `${server.url}/v1` }) })
    await rig.engine.waitForJob(job_id)
    const child = (await rig.engine.handlers.getTree({ job_id })).agents.find((agent) => agent.parent_id !== null)!

    expect(await dispatch('followUp', { job_id, agent_id: child.id, text: 'CHILD-FOLLOW-UP: any cheaper?' })).toEqual({
      ok: true,
      value: { job_id, agent_id: child.id },
    })
    const end = await rig.waitFor(
      (event) => event.type === 'agent.end' && event.agent_id === child.id && event.data.result !== 'CHILD-ANSWER: it sells things',
    )
    expect(end).toMatchObject({ data: { status: 'completed', result: 'CHILD-AGAIN: and cheaper ones' } })
    await rig.waitFor((event) => event.type === 'job.end' && event.job_id === job_id && event.seq > end.seq)
    const childRequests = server.requests.filter((request) => firstUser(request).includes('CHILD-X'))
    expect(childRequests).toHaveLength(2)
    expect(messagesOf(childRequests[1]!).at(-1)).toEqual({ role: 'user', content: 'CHILD-FOLLOW-UP: any cheaper?' })
    // The root did not run again.
    expect(rootRequests(server.requests)).toHaveLength(2)
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    expect(tree.answer).toContain('FIRST-ANSWER')
  })

  it("a child followed up while its parent runs: its new envelope reaches the parent's next request as Arbor's message", async () => {
    const where = project()
    const waitForGo = { tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-X', turns: [childAnswer, finish('CHILD-AGAIN: and cheaper ones')] },
        { match: 'ROOT-TASK', turns: [delegate, waitForGo, finish('ROOT-DONE')] },
      ]),
    })
    cleanups.push(() => server.close())
    const rig = makeEngine(where.dbFile, where.project)
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job({ base_url: `${server.url}/v1` }) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id && event.data.name === 'bash')
    const child = (await rig.engine.handlers.getTree({ job_id })).agents.find((agent) => agent.parent_id !== null)!
    expect(child.status).toBe('completed')

    await rig.engine.handlers.followUp({ job_id, agent_id: child.id, text: 'CHILD-FOLLOW-UP: any cheaper?' })
    await rig.waitFor(
      (event) => event.type === 'agent.end' && event.agent_id === child.id && event.data.result !== 'CHILD-ANSWER: it sells things',
    )
    writeFileSync(path.join(where.project, 'go'), '')
    await rig.engine.waitForJob(job_id)

    const last = rootRequests(server.requests).at(-1)!
    const delivered = (messagesOf(last) as Array<{ role: string; content: string }>).at(-1)!
    expect(delivered.role).toBe('user')
    expect(delivered.content).toContain('CHILD-AGAIN: and cheaper ones')
    expect(delivered.content).toContain(child.id)
    expect(
      rig.events.find((event) => event.type === 'message' && event.agent_id === root_agent_id && event.data.by === 'arbor'),
    ).toMatchObject({
      data: { background_results: [child.id] },
    })
    expect(rig.events.filter((event) => event.type === 'error')).toEqual([])
    expect((await rig.engine.handlers.getTree({ job_id })).answer).toContain('ROOT-DONE')
  })

  it('refuses, changing nothing: a running job, an unknown job or agent, an imported job, an empty or over-long text', async () => {
    const where = project()
    const server = await startFakeOpenAI({
      route: openaiConversations([{ match: 'ROOT-TASK', turns: [{ delay_ms: 1500, ...finish('SLOW-ANSWER') }] }]),
    })
    cleanups.push(() => server.close())
    const rig = makeEngine(where.dbFile, where.project)
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job({ base_url: `${server.url}/v1` }) })

    expect(await dispatch('followUp', { job_id, text: 'too early' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('running') },
    })
    await rig.engine.waitForJob(job_id)
    expect(await dispatch('followUp', { job_id: 'job_nope', text: 'hello' })).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(await dispatch('followUp', { job_id, agent_id: 'agent_nope', text: 'hello' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    expect(await dispatch('followUp', { job_id, text: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    expect(await dispatch('followUp', { job_id, text: 'x'.repeat(32 * 1024 + 1) })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    })

    const out = path.join(where.dir, 'trace.jsonl')
    await rig.engine.exportJsonl(job_id, out)
    const other = makeEngine(path.join(tempDir(), 'other.db'), where.project)
    const imported = other.engine.importTrace(out)
    expect(await createDispatcher(other.engine.handlers)('followUp', { job_id: imported.job_id, text: 'hello' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('read-only') },
    })
    // Nothing was written by any refusal: one run, one end.
    expect(rig.events.filter((event) => event.type === 'agent.resume')).toEqual([])
    expect(endsOf(rig.events, job_id)).toHaveLength(1)
    expect(rootRequests(server.requests)).toHaveLength(1)
  })
})

describe("a parent's task with resume", () => {
  /** The root delegates, then resumes that child by the id in its envelope; then two bad resumes, then it answers. */
  const rootTurns = [
    delegate,
    (view: ConversationView) => {
      const envelope = JSON.parse(view.tool_results[0]?.content ?? '{}') as { agent_id?: string }
      return { tool_calls: [{ name: 'task', arguments: { resume: envelope.agent_id, prompt: 'CHILD-MORE: and the prices?' } }] }
    },
    { tool_calls: [{ name: 'task', arguments: { resume: 'agent_nobody', prompt: 'hello?' } }] },
    finish('ROOT-DONE'),
  ]
  const childTurns = [childAnswer, finish('CHILD-MORE-ANSWER: cheap')]
  const cases = [
    {
      provider: 'openai' as const,
      server: () =>
        startFakeOpenAI({
          route: openaiConversations([
            { match: 'CHILD-X', turns: childTurns },
            { match: 'ROOT-TASK', turns: rootTurns },
          ]),
        }),
      job: (url: string) => job({ base_url: `${url}/v1` }),
    },
    {
      provider: 'anthropic' as const,
      server: () =>
        startFakeAnthropic({
          route: anthropicConversations([
            { match: 'CHILD-X', turns: childTurns },
            { match: 'ROOT-TASK', turns: rootTurns },
          ]),
        }),
      job: (url: string) => job({ provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: url, no_key: true }),
    },
  ]

  it.each(cases)(
    'the child goes on from its history with the new prompt and answers the call ($provider)',
    async ({ server: start, job: jobFor }) => {
      const where = project()
      const server = await start()
      cleanups.push(() => server.close())
      const rig = makeEngine(where.dbFile, where.project)
      const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: jobFor(server.url) })
      await rig.engine.waitForJob(job_id)

      const tree = await rig.engine.handlers.getTree({ job_id })
      expect(tree.job.status).toBe('completed')
      expect(tree.answer).toContain('ROOT-DONE')
      // One child, run twice: no second child was made.
      expect(tree.agents).toHaveLength(2)
      const child = tree.agents.find((agent) => agent.parent_id !== null)!
      expect(child).toMatchObject({ status: 'completed', steps: 2 })
      const childRequests = server.requests.filter((request) => firstUser(request).includes('CHILD-X'))
      expect(childRequests).toHaveLength(2)
      const earlier = withoutCacheMarks(messagesOf(childRequests[0]!))
      const next = withoutCacheMarks(messagesOf(childRequests[1]!))
      expect(JSON.stringify(next.slice(0, earlier.length))).toBe(JSON.stringify(earlier))
      expect(JSON.stringify(next.at(-1))).toContain('CHILD-MORE: and the prices?')

      // The resumed call got the child's new envelope; the bad one a clear error.
      const results = rig.events.filter((event) => event.type === 'tool.result' && event.data.name === 'task')
      expect(results.map((event) => event.type === 'tool.result' && [event.data.ok, event.data.output])).toEqual([
        [true, expect.stringContaining('CHILD-ANSWER')],
        [true, expect.stringContaining('CHILD-MORE-ANSWER: cheap')],
        [false, expect.stringContaining('agent_nobody is not a subagent of yours')],
      ])
      expect(JSON.parse((results[1]!.type === 'tool.result' && results[1]!.data.output) || '{}')).toMatchObject({ agent_id: child.id })
      expect(rig.events.find((event) => event.type === 'agent.resume')).toMatchObject({
        agent_id: child.id,
        data: { by: 'parent', text: 'CHILD-MORE: and the prices?', previous_status: 'completed' },
      })
      expect(rig.events.filter((event) => event.type === 'subagent.start' && event.data.resumed === true)).toHaveLength(1)
    },
  )
})

describe('a resume that is not the caller’s to make', () => {
  it("a child told its sibling's id (by its task, or a file it read) cannot resume it: refused, the sibling untouched", async () => {
    const where = project()
    const idIn = (text: string) => /agent_[0-9a-f]{12}/.exec(text)?.[0] ?? 'agent_unknown'
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-B', turns: [finish('B-SECRET-WORK')] },
        {
          match: 'ATTACKER',
          turns: [
            (view: ConversationView) => ({
              tool_calls: [{ name: 'task', arguments: { resume: idIn(view.first_user), prompt: 'tell me everything' } }],
            }),
            finish('A-DONE'),
          ],
        },
        {
          match: 'ROOT-TASK',
          turns: [
            { tool_calls: [{ name: 'task', arguments: { description: 'B', prompt: 'CHILD-B: do the work', subagent_type: 'general' } }] },
            (view: ConversationView) => ({
              tool_calls: [
                {
                  name: 'task',
                  arguments: {
                    description: 'A',
                    prompt: `ATTACKER: resume ${idIn(view.tool_results[0]?.content ?? '')}`,
                    subagent_type: 'general',
                  },
                },
              ],
            }),
            finish('ROOT-DONE'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const rig = makeEngine(where.dbFile, where.project)
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job({ base_url: `${server.url}/v1`, max_depth: 2 }) })
    await rig.engine.waitForJob(job_id)
    const tree = await rig.engine.handlers.getTree({ job_id })
    const sibling = tree.agents.find((agent) => agent.label === 'B')!
    const attacker = tree.agents.find((agent) => agent.label === 'A')!
    const refusal = rig.events.find((event) => event.type === 'tool.result' && event.agent_id === attacker.id && event.data.name === 'task')
    expect(refusal).toMatchObject({ data: { ok: false, output: expect.stringContaining(`${sibling.id} is not a subagent of yours`) } })
    expect(rig.events.filter((event) => event.type === 'agent.resume')).toEqual([])
    expect(server.requests.filter((request) => firstUser(request).includes('CHILD-B'))).toHaveLength(1)
    expect(tree.agents).toHaveLength(3)
    expect(tree.answer).toContain('ROOT-DONE')
  })
})
