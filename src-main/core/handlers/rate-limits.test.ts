import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { anthropicConversations, anthropicErrors, anthropicView, startFakeAnthropic } from '../providers/testing/fake-anthropic'
import type { CommonResponse, ConversationView, FakeServer, RecordedRequest, RetryAfter } from '../providers/testing/fake-http'
import { openaiConversations, openaiErrors, openaiView, startFakeOpenAI } from '../providers/testing/fake-openai'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * Rate limits and an overloaded API wait, they do not fail (issue 21 §2). Real agent processes,
 * a real SQLite file, the real openai and @anthropic-ai/sdk clients against local servers that
 * answer 429 (or 529, 503) for a while. The windows are real time: they are what is tested.
 */

const { cleanups, tempDir } = useCleanups('arbor-rate-limits-')

type Reply = Record<string, unknown>
type Script = { match: string; turns: Reply[] }

interface Subject {
  kind: 'openai' | 'anthropic'
  start(route: (request: RecordedRequest) => Reply | CommonResponse | undefined): Promise<FakeServer<unknown>>
  router(scripts: Script[]): (request: RecordedRequest) => Reply | undefined
  view(request: RecordedRequest): ConversationView
  job(url: string): Partial<NewJob>
  rateLimit(after?: RetryAfter | number): CommonResponse
  overloaded(): CommonResponse
}

const subjects: Record<'openai' | 'anthropic', Subject> = {
  openai: {
    kind: 'openai',
    start: async (route) => (await startFakeOpenAI({ route: route as never })) as FakeServer<unknown>,
    router: (scripts) => openaiConversations(scripts as never) as (request: RecordedRequest) => Reply | undefined,
    view: openaiView,
    job: (url) => ({ provider: 'openai_compatible', base_url: `${url}/v1`, model: 'llama3.1' }),
    rateLimit: openaiErrors.rateLimit,
    overloaded: openaiErrors.overloaded,
  },
  anthropic: {
    kind: 'anthropic',
    start: async (route) => (await startFakeAnthropic({ route: route as never })) as FakeServer<unknown>,
    router: (scripts) => anthropicConversations(scripts as never) as (request: RecordedRequest) => Reply | undefined,
    view: anthropicView,
    job: (url) => ({ provider: 'anthropic', base_url: url, model: 'claude-haiku-4-5', light_model: 'claude-haiku-4-5', no_key: true }),
    rateLimit: anthropicErrors.rateLimit,
    overloaded: anthropicErrors.overloaded,
  },
}

function setUp() {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  return handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, waitMs: 60_000, cleanups })
}

const finish = (result: string): Reply => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const delegate = (...names: string[]): Reply => ({
  tool_calls: names.map((name) => ({
    name: 'task',
    arguments: { description: name, prompt: `${name}: say what the shop sells`, subagent_type: 'general' },
  })),
})

/**
 * The root delegates to `children` at once; every request of a child is answered `limited()`
 * from the first child request until `windowMs` later, then normally.
 */
async function limitedServer(subject: Subject, children: string[], windowMs: number, limited: () => CommonResponse) {
  const routes = subject.router([
    ...children.map((name) => ({ match: `${name}:`, turns: [finish(`${name} DONE`)] })),
    { match: 'ROOT-TASK', turns: [delegate(...children), finish('ROOT DONE')] },
  ])
  const window = { start: 0, end: 0 }
  const server = await subject.start((request) => {
    const child = children.find((name) => subject.view(request).first_user.includes(`${name}:`))
    if (child && window.start === 0) Object.assign(window, { start: Date.now(), end: Date.now() + windowMs })
    if (child && Date.now() < window.end) return limited()
    return routes(request)
  })
  cleanups.push(() => server.close())
  const of = (name: string) => server.requests.filter((request) => subject.view(request).first_user.includes(`${name}:`))
  return { server, window, of }
}

const newJob = (subject: Subject, url: string, overrides: Partial<NewJob> = {}): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: what does this shop sell?',
  ...subject.job(url),
  ...overrides,
})

const agentIdOf = (events: TraceEvent[], label: string): string => {
  const start = events.find((event) => event.type === 'agent.start' && event.data.label === label)
  if (!start?.agent_id) throw new Error(`no agent ${label}`)
  return start.agent_id
}
const waitsOf = (events: TraceEvent[], agentId: string) =>
  events.flatMap((event) => (event.type === 'agent.wait' && event.agent_id === agentId ? [event.data] : []))
const endsOf = (events: TraceEvent[]) => events.filter((event) => event.type === 'agent.end')
const failed = (events: TraceEvent[]) => endsOf(events).filter((event) => event.type === 'agent.end' && event.data.status !== 'completed')

describe('a provider answering 429 for 20 s', () => {
  it.each([
    ['openai', 'no retry-after', undefined],
    ['anthropic', 'retry-after: 3', 3],
  ] as const)(
    '%s, %s: no agent fails, and the two children share the limit (one request at a time, not one each)',
    async (kind, _label, retryAfter) => {
      const subject = subjects[kind]
      const rig = setUp()
      const { window, of, server } = await limitedServer(subject, ['AGENT-A', 'AGENT-B'], 20_000, () => subject.rateLimit(retryAfter))
      const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: newJob(subject, server.url) })
      await rig.engine.waitForJob(job_id)

      expect(failed(rig.events)).toEqual([])
      const tree = await rig.engine.handlers.getTree({ job_id })
      expect(tree.job.status).toBe('completed')
      const inWindow = [...of('AGENT-A'), ...of('AGENT-B')]
        .filter((request) => request.received_at < window.end)
        .sort((a, b) => a.received_at - b.received_at)
      // Both children waited, in the trace: starts with what the provider said and the next try, one end, `retried`.
      for (const label of ['AGENT-A', 'AGENT-B']) {
        const waits = waitsOf(rig.events, agentIdOf(rig.events, label))
        expect(waits[0]).toMatchObject({ phase: 'start', reason: 'rate_limit', provider: kind, status: 429 })
        expect(waits[0]!.message).toMatch(new RegExp(`^${kind}: HTTP 429 rate_limit`))
        expect(Date.parse(waits[0]!.until!)).toBeGreaterThan(window.start)
        expect(waits.filter((wait) => wait.phase === 'end')).toEqual([
          expect.objectContaining({ phase: 'end', outcome: 'retried', waited_ms: expect.any(Number) }),
        ])
        expect(waits.at(-1)!.phase).toBe('end')
      }
      // One agent alone sends about 12 in 20 s (4 attempts, a wait of 2 s, 4, 4 s, 4): two that did not share would send twice that.
      expect(inWindow.length).toBeLessThanOrEqual(16)
      // After the first answers, the endpoint sees one probe at a time: no two limited requests overlap.
      const afterFirst = inWindow.slice(2)
      for (const [index, request] of afterFirst.entries()) {
        const previous = afterFirst[index - 1]
        if (previous) expect(request.received_at).toBeGreaterThanOrEqual(previous.finished_at ?? Infinity)
      }
    },
    60_000,
  )
})

/** The most requests the server was answering at one moment. */
function peakConcurrency(requests: RecordedRequest[]): number {
  const edges = requests.flatMap((request) => [
    { at: request.received_at, delta: 1 },
    { at: request.finished_at ?? Infinity, delta: -1 },
  ])
  // An end and a start at the same millisecond: the end first.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta)
  let now = 0
  let peak = 0
  for (const edge of edges) peak = Math.max(peak, (now += edge.delta))
  return peak
}

describe('the cap on concurrent model calls', () => {
  it('with a cap of 2 (Settings) and 6 agents, the server never answers more than 2 at once, and all complete', async () => {
    const subject = subjects.openai
    const rig = setUp()
    expect(await rig.engine.handlers.setMaxModelCalls({ value: 2 })).toEqual({ max_model_calls: 2 })
    const children = ['C1', 'C2', 'C3', 'C4', 'C5']
    // Slow replies, so that calls would overlap if nothing held them.
    const slow = (reply: Reply): Reply => ({ ...reply, delay_ms: 400 })
    const routes = subject.router([
      ...children.map((name) => ({ match: `${name}:`, turns: [slow(finish(`${name} DONE`))] })),
      { match: 'ROOT-TASK', turns: [delegate(...children), slow(finish('ROOT DONE'))] },
    ])
    const server = await subject.start(routes)
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: newJob(subject, server.url, { max_concurrent_children: 5 }),
    })
    await rig.engine.waitForJob(job_id)
    expect(failed(rig.events)).toEqual([])
    expect(endsOf(rig.events)).toHaveLength(6)
    expect(server.requests).toHaveLength(1 + 5 + 1)
    expect(peakConcurrency(server.requests)).toBe(2)
    expect((await rig.engine.handlers.getSettings({})).max_model_calls).toBe(2)
  }, 60_000)
})

describe('what does not pass with waiting', () => {
  it('a 400 fails the agent at once, with no wait', async () => {
    const subject = subjects.anthropic
    const rig = setUp()
    const server = await subject.start(() => ({
      kind: 'http_error',
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: at least one message is required' } },
    }))
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: newJob(subject, server.url) })
    await rig.engine.waitForJob(job_id)
    expect(server.requests).toHaveLength(1)
    expect(rig.events.filter((event) => event.type === 'agent.wait')).toEqual([])
    expect(endsOf(rig.events)).toMatchObject([{ data: { status: 'failed', terminal_reason: 'provider_error' } }])
  })
})

describe('waits that end otherwise', () => {
  it('a retry-after is honoured; 529 overloaded from the Anthropic API waits too', async () => {
    const subject = subjects.anthropic
    const rig = setUp()
    const { server, window } = await limitedServer(subject, ['AGENT-A'], 6_000, () => ({
      ...subject.overloaded(),
      headers: { 'retry-after': '1' },
    }))
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: newJob(subject, server.url) })
    await rig.engine.waitForJob(job_id)
    expect(failed(rig.events)).toEqual([])
    const waits = waitsOf(rig.events, agentIdOf(rig.events, 'AGENT-A'))
    expect(waits[0]).toMatchObject({
      phase: 'start',
      status: 529,
      message: 'anthropic: HTTP 529 overloaded_error: Overloaded (after 4 attempts)',
    })
    // The next try is when retry-after says: a second after the fourth attempt was answered.
    const fourth = server.requests.filter((request) => subject.view(request).first_user.includes('AGENT-A:'))[3]!
    expect(Math.abs(Date.parse(waits[0]!.until!) - (fourth.finished_at! + 1000))).toBeLessThan(200)
    expect(waits.at(-1)).toMatchObject({ phase: 'end', outcome: 'retried' })
    expect(window.end).toBeGreaterThan(0)
  }, 60_000)

  it('past rate_limit_wait_minutes the agent fails as before, its wait ended gave_up', async () => {
    const subject = subjects.openai
    const rig = setUp()
    const server = await subject.start(() => subject.rateLimit({ ms: 100 }))
    cleanups.push(() => server.close())
    // 0.02 minutes: 1.2 s of waiting.
    const { job_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: newJob(subject, server.url, { rate_limit_wait_minutes: 0.02 }),
    })
    await rig.engine.waitForJob(job_id)
    const root = agentIdOf(rig.events, 'root')
    const waits = waitsOf(rig.events, root)
    expect(waits.filter((wait) => wait.phase === 'start').length).toBeGreaterThanOrEqual(2)
    expect(waits.filter((wait) => wait.phase === 'end')).toEqual([expect.objectContaining({ outcome: 'gave_up' })])
    expect(waits.at(-1)!.waited_ms).toBeGreaterThanOrEqual(1000)
    expect(endsOf(rig.events)).toMatchObject([{ data: { status: 'failed', terminal_reason: 'provider_error' } }])
    expect(rig.events.find((event) => event.type === 'job.end')).toMatchObject({ data: { status: 'failed' } })
  })

  it('retryNow ends the wait (retry_now) and the call goes at once, through the cooldown', async () => {
    const subject = subjects.openai
    const rig = setUp()
    const through = { open: false }
    const routes = subject.router([{ match: 'ROOT-TASK', turns: [finish('ROOT DONE')] }])
    // The first attempts are answered fast; the fourth asks for a minute, so the wait is long.
    const server = await subject.start((request) => (through.open ? routes(request) : subject.rateLimit(request.seq < 4 ? { ms: 20 } : 60)))
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: newJob(subject, server.url) })
    const start = await rig.waitFor((event) => event.type === 'agent.wait' && event.data.phase === 'start')
    expect(start.type === 'agent.wait' && Date.parse(start.data.until!) - Date.parse(start.ts)).toBeGreaterThan(50_000)
    expect((await rig.engine.handlers.getTree({ job_id })).agents[0]).toMatchObject({ status: 'rate_limited' })
    through.open = true
    const asked = Date.now()
    expect(await rig.engine.handlers.retryNow({ agent_id: root_agent_id })).toEqual({ retried: true })
    await rig.engine.waitForJob(job_id)
    expect(Date.now() - asked).toBeLessThan(10_000)
    expect(waitsOf(rig.events, root_agent_id).filter((wait) => wait.phase === 'end')).toEqual([
      expect.objectContaining({ outcome: 'retry_now' }),
    ])
    expect(server.requests).toHaveLength(5)
    expect((await rig.engine.handlers.getTree({ job_id })).job.status).toBe('completed')
    // Not waiting any more: nothing to retry.
    expect(await rig.engine.handlers.retryNow({ agent_id: root_agent_id })).toEqual({ retried: false })
  }, 60_000)

  it('a kill during a wait ends it at once (ended)', async () => {
    const subject = subjects.openai
    const rig = setUp()
    const server = await subject.start((request) => subject.rateLimit(request.seq < 4 ? { ms: 20 } : 60))
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: newJob(subject, server.url) })
    await rig.waitFor((event) => event.type === 'agent.wait' && event.data.phase === 'start')
    const killed = Date.now()
    await rig.engine.handlers.killAgent({ agent_id: root_agent_id })
    await rig.engine.waitForJob(job_id)
    expect(Date.now() - killed).toBeLessThan(10_000)
    expect(waitsOf(rig.events, root_agent_id).filter((wait) => wait.phase === 'end')).toEqual([
      expect.objectContaining({ outcome: 'ended' }),
    ])
    expect(endsOf(rig.events)).toMatchObject([{ data: { status: 'killed' } }])
    expect(server.requests).toHaveLength(4)
  }, 60_000)
})
