import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiError } from '../api/contract'
import { createDispatcher } from '../api/dispatcher'
import { defaultModels, defaultNewJob, type NewJob } from '../api/job-form'
import { createEngine, type Engine } from '../engine'
import { localPlaceholderKey, type Environment } from '../providers/connection'
import { anthropicConversations, startFakeAnthropic } from '../providers/testing/fake-anthropic'
import type { ConversationView, FakeServer, RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI } from '../providers/testing/fake-openai'
import { FileKeyStore } from '../settings/key-store'
import { recordEvents, testAgentHost } from '../supervisor/testing'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'

/**
 * Starting jobs through the engine's API as the new-job form does: the form's checks (through the
 * dispatcher, so the zod parse runs as for IPC and the WebSocket), the per-project defaults and
 * recent projects, and real jobs with real agent processes against local servers that stream the
 * real OpenAI and Anthropic wire formats.
 */

const { cleanups, tempDir } = useCleanups('arbor-start-job-')

interface Rig {
  engine: Engine
  dir: string
  dbFile: string
  events: TraceEvent[]
  waitFor(predicate: (event: TraceEvent) => boolean, timeoutMs?: number): Promise<TraceEvent>
}

function makeEngine(options: { project?: string; env?: Environment } = {}): Rig {
  const dir = tempDir()
  const dbFile = path.join(dir, 'arbor.db')
  const engine = createEngine({
    dbFile,
    processHost: testAgentHost(),
    projectDir: options.project,
    killGraceMs: 1000,
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: options.env ?? {},
  })
  cleanups.push(() => engine.close())
  return { engine, dir, dbFile, ...recordEvents(engine, 15_000) }
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())])

const agentsInstructions = '# Agent rules\n\nAGENTS-MARKER: always run the tests with `npm test` before finishing.\n'
const claudeInstructions = '# Claude rules\n\nCLAUDE-MARKER: prefer small functions.\n'

function shopProject(
  dir: string,
  files: Record<string, string> = { 'AGENTS.md': agentsInstructions, 'CLAUDE.md': claudeInstructions },
): string {
  const project = path.join(dir, 'shop')
  mkdirSync(path.join(project, 'src'), { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n\nSells things; totals carts.\n')
  writeFileSync(path.join(project, 'src/cart.ts'), 'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0)\n')
  writeFileSync(path.join(project, 'notes.txt'), 'keep me\n')
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(project, name), text)
  return project
}

const goodJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: find where the cart total is computed',
  provider: 'openai_compatible',
  base_url: 'http://127.0.0.1:9/v1',
  model: 'llama3.1',
  ...overrides,
})

const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })

const areas = { 'AREA-DOCS': 'README.md', 'AREA-CART': 'src/cart.ts' } as const

/** Each explore child reads its file, then answers explore JSON quoting its first line. */
function childScript(area: keyof typeof areas) {
  const file = areas[area]
  return {
    match: area,
    turns: [
      { delay_ms: 300, text: `Reading ${file}.`, tool_calls: [{ name: 'read_file', arguments: { path: file } }] },
      (view: ConversationView) => {
        const firstLine = (view.tool_results[0]?.content ?? '').split('\n')[0]?.replace(/^\s*\d+\t/, '') ?? ''
        return {
          delay_ms: 300,
          tool_calls: [
            {
              name: 'attempt_completion',
              arguments: {
                result: JSON.stringify({
                  status: 'completed',
                  summary: `${file} starts with: ${firstLine}`,
                  findings: [],
                  evidence: [`${file}:1`],
                  unresolved_questions: [],
                }),
              },
            },
          ],
        }
      },
    ],
  }
}

const delegate = (extraCalls: Array<{ name: string; arguments: Record<string, unknown> }> = []) => ({
  text: 'Splitting the survey in two.',
  tool_calls: [
    ...extraCalls,
    ...Object.keys(areas).map((area) => ({
      name: 'task',
      arguments: { description: area, prompt: `Survey ${area} and report as explore JSON.`, subagent_type: 'explore' },
    })),
  ],
})

async function jobEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events.sort((a, b) => a.seq - b.seq)
}

/** The key a request carried: `x-api-key`, or the bearer token (what @anthropic-ai/sdk 1.x sends for an apiKey). */
const keySent = (request: RecordedRequest): string | undefined =>
  (request.headers['x-api-key'] as string | undefined) ?? (request.headers.authorization as string | undefined)?.replace(/^Bearer /, '')

const readIfThere = (file: string): string => (existsSync(file) ? readFileSync(file).toString('latin1') : '')

describe('startJob refuses a bad new-job form field by field, and creates no job', () => {
  const badFields: Array<[string, Partial<NewJob>, RegExp]> = [
    ['task', { task: '   ' }, /describe the task/],
    ['base_url', { base_url: null }, /needs its base URL/],
    ['base_url', { base_url: 'localhost:11434' }, /http:\/\/ or https:\/\/ URL/],
    ['base_url', { base_url: 'not a url' }, /http:\/\/ or https:\/\/ URL/],
    ['max_depth', { max_depth: 9 }, /at most 8/],
    ['max_concurrent_children', { max_concurrent_children: 0 }, /more than 0/],
    ['job_token_budget', { job_token_budget: -5 }, /more than 0/],
    ['job_cost_budget', { job_cost_budget: 0 }, /more than 0/],
    ['agent_timeout_s', { agent_timeout_s: 0.5 }, /whole number/],
    ['agent_timeout_s', { agent_timeout_s: 86_401 }, /at most 86,400/],
    ['max_spawns_per_turn', { max_spawns_per_turn: -1 }, /at least 0/],
    ['max_spawns_per_minute', { max_spawns_per_minute: 1.5 }, /whole number/],
    ['no_sandbox_confirmed', { no_sandbox: true }, /needs a confirmation: "I understand commands can read and write anything I can"/],
    ['profile', { profile: 'no-such-profile' }, /no profile "no-such-profile"/],
  ]

  it.each(badFields)('%s: %j', async (field, change, message) => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const dispatch = createDispatcher(rig.engine.handlers)
    const result = await dispatch('startJob', { kind: 'agent', job: goodJob(change) })
    expect(result.ok).toBe(false)
    const error = (result as { error: ApiError }).error
    expect(error.code).toBe('invalid_request')
    expect(error.fields).toEqual({ [field]: expect.stringMatching(message) })
    expect(await rig.engine.handlers.listJobs({})).toEqual({ jobs: [], waiting: {} })
  })

  it('reports every bad field of one submission at once', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const result = await createDispatcher(rig.engine.handlers)('startJob', {
      kind: 'agent',
      job: goodJob({ task: '', base_url: null, max_depth: 9, max_concurrent_children: 0, job_token_budget: -5, job_cost_budget: 0 }),
    })
    expect(Object.keys((result as { error: ApiError }).error.fields ?? {}).sort()).toEqual(
      ['base_url', 'job_cost_budget', 'job_token_budget', 'max_concurrent_children', 'max_depth', 'task'].sort(),
    )
    expect((await rig.engine.handlers.listJobs({})).jobs).toEqual([])
  })

  it('a fractional number in one field does not hide the missing base URL', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const result = await createDispatcher(rig.engine.handlers)('startJob', {
      kind: 'agent',
      job: goodJob({ base_url: null, agent_timeout_s: 0.5 }),
    })
    expect(Object.keys((result as { error: ApiError }).error.fields ?? {}).sort()).toEqual(['agent_timeout_s', 'base_url'])
  })

  it('refuses a cost budget when a project profile runs on an unpriced model of its own', async () => {
    const project = shopProject(tempDir())
    mkdirSync(path.join(project, '.arbor/agents'), { recursive: true })
    writeFileSync(
      path.join(project, '.arbor/agents/reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews a diff\ntools: [read_file]\nmodel: house-reviewer-7b\n---\nReview the change.\n',
    )
    const rig = makeEngine({ project })
    const refused = await createDispatcher(rig.engine.handlers)('startJob', {
      kind: 'agent',
      job: goodJob({ model: 'gpt-4o-mini', job_cost_budget: 2 }),
    })
    expect(refused).toMatchObject({
      ok: false,
      error: { fields: { job_cost_budget: expect.stringContaining('"house-reviewer-7b" has no price') } },
    })
    expect((await rig.engine.handlers.listJobs({})).jobs).toEqual([])
  })

  it('refuses a cost budget on an unpriced model, pointing at Settings ▸ Prices; a priced model starts', async () => {
    const project = shopProject(tempDir())
    const rig = makeEngine({ project })
    const dispatch = createDispatcher(rig.engine.handlers)
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('nothing to do')] }]) })
    cleanups.push(() => server.close())

    const refused = await dispatch('startJob', {
      kind: 'agent',
      job: goodJob({ model: 'my-local-model', job_cost_budget: 2, base_url: `${server.url}/v1` }),
    })
    expect(refused.ok).toBe(false)
    const error = (refused as { error: ApiError }).error
    expect(Object.keys(error.fields ?? {})).toEqual(['job_cost_budget'])
    expect(error.fields?.job_cost_budget).toContain('"my-local-model" has no price')
    expect(error.fields?.job_cost_budget).toContain('Settings ▸ Prices')
    expect((await rig.engine.handlers.listJobs({})).jobs).toEqual([])
    expect(server.requests).toHaveLength(0)

    const job = goodJob({ model: 'gpt-4o-mini', job_cost_budget: 2, base_url: `${server.url}/v1`, max_depth: 2, job_token_budget: 50_000 })
    const started = await dispatch('startJob', { kind: 'agent', job })
    expect(started).toEqual({ ok: true, value: { job_id: expect.any(String), root_agent_id: expect.stringMatching(/^agent_/) } })
    const jobId = (started as { value: { job_id: string } }).value.job_id
    await withTimeout(rig.engine.waitForJob(jobId), 15_000, 'the job to end')
    expect((await rig.engine.handlers.listJobs({})).jobs.map((each) => [each.id, each.status])).toEqual([[jobId, 'completed']])

    // The form opens with what was used last in this project (the task left empty).
    expect((await rig.engine.handlers.getJobDefaults({})).job).toEqual({ ...job, task: '' })
    // A project that never ran a job starts on the provider and models used last, not the scripted one.
    const other = path.join(tempDir(), 'fresh')
    mkdirSync(other)
    await rig.engine.handlers.openProject({ path: other })
    expect((await rig.engine.handlers.getJobDefaults({})).job).toEqual({
      ...defaultNewJob(),
      provider: job.provider,
      base_url: job.base_url,
      model: job.model,
      light_model: job.light_model,
    })
  })

  it("a project's first job form: the scripted provider with no key, else the first provider with a key; a demo is no choice", async () => {
    const project = shopProject(tempDir())
    const bare = makeEngine({ project })
    expect((await bare.engine.handlers.getJobDefaults({})).job).toEqual(defaultNewJob())
    // The scripted demo ran: still nothing chosen.
    const demo = await bare.engine.handlers.startJob({ kind: 'demo' })
    await withTimeout(bare.engine.waitForJob(demo.job_id), 30_000, 'the demo to end')
    expect((await bare.engine.handlers.getJobDefaults({})).job.provider).toBe('scripted')
    // A key in the environment, then one stored, each picks its provider.
    const withVariable = makeEngine({ project, env: { ANTHROPIC_API_KEY: 'sk-ant-test-000000' } })
    expect((await withVariable.engine.handlers.getJobDefaults({})).job).toMatchObject({
      provider: 'anthropic',
      model: defaultModels.anthropic.model,
    })
    await bare.engine.handlers.setProviderKey({ provider: 'openai', key: 'sk-test-0000000000' })
    expect((await bare.engine.handlers.getJobDefaults({})).job.provider).toBe('openai')
  })

  it('records the sandbox, network and guard settings in the job header; the next form remembers the network, never the sandbox opt-out', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('done')] }]) })
    cleanups.push(() => server.close())
    const job = goodJob({
      base_url: `${server.url}/v1`,
      allow_network: true,
      no_sandbox: true,
      no_sandbox_confirmed: true,
      agent_timeout_s: 120,
      max_spawns_per_turn: 4,
      max_spawns_per_minute: 0,
    })
    const started = await createDispatcher(rig.engine.handlers)('startJob', { kind: 'agent', job })
    expect(started.ok).toBe(true)
    const jobId = (started as { value: { job_id: string } }).value.job_id
    await withTimeout(rig.engine.waitForJob(jobId), 15_000, 'the job to end')

    const file = path.join(rig.dir, 'trace.jsonl')
    await rig.engine.exportJsonl(jobId, file)
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { type: string; job: { settings: Record<string, unknown> } }
    expect(header.type).toBe('trace.header')
    expect(header.job.settings).toMatchObject({
      no_sandbox: true,
      allow_network: true,
      agent_timeout_ms: 120_000,
      max_spawns_per_turn: 4,
      max_spawns_per_minute: 0,
    })
    expect(header.job.settings).not.toHaveProperty('no_sandbox_confirmed')

    expect((await rig.engine.handlers.getJobDefaults({})).job).toEqual({ ...job, task: '', no_sandbox: false, no_sandbox_confirmed: false })
  })

  it('a job with the defaults records the sandbox on, the network off and the default guards', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('done')] }]) })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    await withTimeout(rig.engine.waitForJob(job_id), 15_000, 'the job to end')
    expect((await rig.engine.handlers.getTree({ job_id })).job.settings).toMatchObject({
      no_sandbox: false,
      allow_network: false,
      agent_timeout_ms: null,
      max_spawns_per_turn: 10,
      max_spawns_per_minute: 60,
    })
  })

  it('refuses a remote provider with no key, saying where to put one', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const result = await createDispatcher(rig.engine.handlers)('startJob', {
      kind: 'agent',
      job: goodJob({ provider: 'openai', base_url: null, model: 'gpt-4o' }),
    })
    expect((result as { error: ApiError }).error.fields).toEqual({ provider: expect.stringContaining('Settings ▸ Providers') })
    expect((await rig.engine.handlers.listJobs({})).jobs).toEqual([])
  })
})

describe("subagents' risky commands in ask mode", () => {
  it('wait for the user: approved for the job, the same command runs again unasked; a denial with a message reaches the model', async () => {
    const project = shopProject(tempDir(), { 'stale.txt': 'old\n', 'keep.txt': 'keep\n' })
    const rig = makeEngine({ project })
    let deniedResult: string | null = null
    const spawn = (label: string) => ({
      name: 'task',
      arguments: { description: label, prompt: `${label}: tidy up.`, subagent_type: 'general' },
    })
    const bash = (command: string) => ({ text: `Running ${command}.`, tool_calls: [{ name: 'bash', arguments: { command } }] })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-A', turns: [bash('rm -f stale.txt'), finish('A removed it')] },
        { match: 'CHILD-B', turns: [{ delay_ms: 400, ...bash('rm -f stale.txt') }, finish('B removed it again')] },
        {
          match: 'CHILD-C',
          turns: [
            bash('rm keep.txt'),
            (view: ConversationView) => {
              deniedResult = view.tool_results.at(-1)?.content ?? null
              return finish('C kept it')
            },
          ],
        },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [spawn('CHILD-A'), spawn('CHILD-B'), spawn('CHILD-C')] }, finish('tidied')] },
      ]),
    })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: goodJob({ base_url: `${server.url}/v1`, max_concurrent_children: 3, subagent_approvals: 'ask' }),
    })
    // By the asking agent's path: A and B ask for the same command, in either order.
    const asked = (label: string) =>
      rig.waitFor((event) => event.type === 'approval.request' && event.depth === 1 && event.data.path?.at(-1) === label, 20_000)

    // A's request waits with the agent's path, label and profile; the job list counts it.
    const fromA = await asked('CHILD-A')
    expect(fromA.data.command).toBe('rm -f stale.txt')
    const child = (await rig.engine.handlers.getTree({ job_id })).agents.find((agent) => agent.id === fromA.agent_id)!
    expect(child).toMatchObject({ label: 'CHILD-A', status: 'waiting_approval' })
    expect((await rig.engine.handlers.getTree({ job_id })).approvals).toContainEqual(
      expect.objectContaining({ approval_id: fromA.data.approval_id, path: ['root', 'CHILD-A'], label: 'CHILD-A', profile: 'general' }),
    )
    expect((await rig.engine.handlers.listJobs({})).waiting[job_id]).toContain(fromA.data.approval_id)
    const approved = await dispatch('decideApproval', { approval_id: fromA.data.approval_id as string, decision: 'approved', scope: 'job' })
    expect(approved).toEqual({ ok: true, value: { decided: true } })

    // C's is denied with a message: the model reads it in the tool result.
    const fromC = await asked('CHILD-C')
    const message = 'Keep that file; list the folder instead.'
    expect(await dispatch('decideApproval', { approval_id: fromC.data.approval_id as string, decision: 'denied', message })).toMatchObject({
      ok: true,
    })

    await withTimeout(rig.engine.waitForJob(job_id), 30_000, 'the job to end')
    const decisions = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'approval.decision').map((event) => event.data)
    // B's identical command ran without asking, under the rule A's approval made.
    expect(decisions.filter((decision) => decision.scope === 'job')).toEqual([
      expect.objectContaining({ approval_id: fromA.data.approval_id, decision: 'approved', by: 'user', scope: 'job' }),
      expect.objectContaining({ decision: 'approved', by: 'auto_approve', scope: 'job' }),
    ])
    expect(decisions).toContainEqual(
      expect.objectContaining({ approval_id: fromC.data.approval_id, decision: 'denied', by: 'user', message }),
    )
    expect(deniedResult).toContain(`The user says: ${message}`)
    expect(existsSync(path.join(project, 'stale.txt'))).toBe(false)
    expect(readFileSync(path.join(project, 'keep.txt'), 'utf8')).toBe('keep\n')
    expect((await rig.engine.handlers.getTree({ job_id })).approved_commands).toEqual(['rm -f stale.txt'])
    expect(await dispatch('revokeApprovedCommand', { job_id, command: 'rm -f stale.txt' })).toEqual({ ok: true, value: { revoked: true } })
    expect(await dispatch('revokeApprovedCommand', { job_id, command: 'rm -f stale.txt' })).toEqual({ ok: true, value: { revoked: false } })
    expect((await rig.engine.handlers.getTree({ job_id })).approved_commands).toEqual([])
  })

  it('flipping the mode decides what waits; the wall clock does not run while an agent waits; bad requests change nothing', async () => {
    const project = shopProject(tempDir(), { 'stale.txt': 'old\n' })
    const rig = makeEngine({ project })
    const spawn = { name: 'task', arguments: { description: 'CHILD-W', prompt: 'CHILD-W: tidy up.', subagent_type: 'general' } }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-W', turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'rm -f stale.txt' } }] }, finish('removed')] },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [spawn] }, finish('done')] },
      ]),
    })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)
    // A 6 s limit per agent: the child waits longer than that for its approval, and is not timed
    // out; the limit leaves the agents' own work (process starts, model calls) room on a loaded machine.
    const { job_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: goodJob({ base_url: `${server.url}/v1`, subagent_approvals: 'ask', agent_timeout_s: 6 }),
    })
    const request = await rig.waitFor((event) => event.type === 'approval.request' && event.depth === 1, 20_000)
    await new Promise((resolve) => setTimeout(resolve, 6_500))
    expect((await rig.engine.handlers.getTree({ job_id })).agents.find((agent) => agent.id === request.agent_id)?.status).toBe(
      'waiting_approval',
    )

    for (const bad of [
      { approval_id: request.data.approval_id, decision: 'denied', scope: 'job' },
      { approval_id: request.data.approval_id, decision: 'approved', message: 'fine' },
      { approval_id: request.data.approval_id, decision: 'denied', message: '   ' },
      { approval_id: request.data.approval_id, decision: 'denied', message: 'x'.repeat(5000) },
    ]) {
      expect(await dispatch('decideApproval', bad)).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    }
    expect(await dispatch('setSubagentApprovals', { job_id, mode: 'sometimes' })).toMatchObject({ ok: false })
    expect((await rig.engine.handlers.getTree({ job_id })).approvals).toHaveLength(1)

    // Flipping to approve decides the waiting request.
    expect(await dispatch('setSubagentApprovals', { job_id, mode: 'approve' })).toEqual({ ok: true, value: { mode: 'approve' } })
    await withTimeout(rig.engine.waitForJob(job_id), 20_000, 'the job to end')
    const decision = (await jobEvents(rig.engine, job_id)).find((event) => event.type === 'approval.decision')
    expect(decision?.data).toMatchObject({ decision: 'approved', by: 'auto_approve' })
    expect(existsSync(path.join(project, 'stale.txt'))).toBe(false)
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job).toMatchObject({ status: 'completed', subagent_approvals: 'approve', auto_approve: true })
    expect(tree.agents.every((agent) => agent.status === 'completed')).toBe(true)
  })
})

describe('steering a running agent', () => {
  it("delivers the user's messages at the agent's next step, after its running tool, together and in order, to it alone", async () => {
    const project = shopProject(tempDir())
    const rig = makeEngine({ project })
    const spawn = { name: 'task', arguments: { description: 'CHILD-S', prompt: 'CHILD-S: look around.', subagent_type: 'general' } }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-S', turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 3' } }] }, finish('looked')] },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [spawn] }, finish('done')] },
      ]),
    })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    const toolCall = await rig.waitFor((event) => event.type === 'tool.call' && event.depth === 1 && event.data.name === 'bash', 20_000)
    const child = toolCall.agent_id!
    const first = dispatch('steerAgent', { agent_id: child, text: 'STEER-ONE: check cart.ts first' })
    const second = dispatch('steerAgent', { agent_id: child, text: 'STEER-TWO: then README.md' })
    type Delivered = { ok: true; value: { delivered_at: string; sent_at: string } }
    const [one, two] = (await Promise.all([first, second])) as [Delivered, Delivered]
    expect(one.ok && two.ok).toBe(true)
    const toolResult = (await jobEvents(rig.engine, job_id)).find((event) => event.type === 'tool.result' && event.agent_id === child)!
    // Delivered after the 3-second command ended, never cutting it short.
    expect(Date.parse(one.value.delivered_at)).toBeGreaterThanOrEqual(Date.parse(toolResult.ts))
    expect(Date.parse(one.value.delivered_at) - Date.parse(one.value.sent_at)).toBeGreaterThan(1000)
    await withTimeout(rig.engine.waitForJob(job_id), 20_000, 'the job to end')

    const bodies = server.requests.map((request) => JSON.stringify(request.body))
    const withSteer = bodies.filter((body) => body.includes('STEER-ONE'))
    // In the child's next request only, once, after the tool result, both messages in the order sent.
    expect(withSteer).toHaveLength(1)
    expect(withSteer[0]).toContain('CHILD-S: look around.')
    const messages = (JSON.parse(withSteer[0]!) as { messages: Array<{ role: string; content: string }> }).messages
    const roles = messages.map((message) => message.role)
    expect(roles.slice(-3)).toEqual(['tool', 'user', 'user'])
    expect(messages.at(-2)?.content).toContain('STEER-ONE')
    expect(messages.at(-1)?.content).toContain('STEER-TWO')
    expect(messages.at(-2)?.content).toContain('A message from the user')
    const recorded = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'message' && event.data.by === 'user')
    expect(recorded.map((event) => [event.agent_id, event.data.steer_id !== undefined, typeof event.data.delivered_at])).toEqual([
      [child, true, 'string'],
      [child, true, 'string'],
    ])

    // An agent that has ended, one unknown, and bad text are refused; nothing is recorded.
    expect(await dispatch('steerAgent', { agent_id: child, text: 'too late' })).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(await dispatch('steerAgent', { agent_id: 'agent_nobody', text: 'hello' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    expect(await dispatch('steerAgent', { agent_id: child, text: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    const long = 'x'.repeat(32 * 1024 + 1)
    expect(await dispatch('steerAgent', { agent_id: child, text: long })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    const after = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'message' && event.data.by === 'user')
    expect(after).toHaveLength(2)
  })
  it('refuses a message to an agent that ends before its next step, saying so, instead of losing it', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'ROOT-TASK', turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 5' } }] }, finish('slept')] },
      ]),
    })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root_agent_id, 20_000)
    const steer = dispatch('steerAgent', { agent_id: root_agent_id, text: 'STEER-LATE: stop sleeping' })
    await rig.engine.handlers.killAgent({ agent_id: root_agent_id })
    expect(await steer).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('was not delivered') } })
    await withTimeout(rig.engine.waitForJob(job_id), 20_000, 'the job to end')
    expect(server.requests.some((request) => JSON.stringify(request.body).includes('STEER-LATE'))).toBe(false)
  })
})

describe('a job that sends no key', () => {
  it('runs against its own base URL beside a saved key, which never leaves for it; without "no key" it is refused', async () => {
    const rig = makeEngine({ project: shopProject(tempDir()) })
    const key = 'sk-saved-for-another-server-SECRET-7777'
    await rig.engine.handlers.setProviderConfig({
      provider: 'openai_compatible',
      base_url: 'http://127.0.0.1:8/v1',
      model: 'm',
      light_model: null,
    })
    await rig.engine.handlers.setProviderKey({ provider: 'openai_compatible', key })
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('done without a key')] }]) })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)

    const own = goodJob({ base_url: `${server.url}/v1` })
    const refused = await dispatch('startJob', { kind: 'agent', job: own })
    expect(refused).toMatchObject({ ok: false, error: { fields: { base_url: expect.stringContaining('or send no key') } } })
    // "No key" needs a URL to send nothing to.
    const nowhere = await dispatch('startJob', { kind: 'agent', job: { ...own, base_url: null, no_key: true } })
    expect(nowhere).toMatchObject({ ok: false, error: { fields: { no_key: expect.stringContaining('needs the base URL') } } })
    expect(server.requests).toHaveLength(0)

    const started = await dispatch('startJob', { kind: 'agent', job: { ...own, no_key: true } })
    expect(started.ok).toBe(true)
    const { job_id } = (started as { value: { job_id: string } }).value
    await withTimeout(rig.engine.waitForJob(job_id), 15_000, 'the job to end')
    expect(await rig.engine.handlers.getTree({ job_id })).toMatchObject({
      job: { status: 'completed', settings: { base_url: `${server.url}/v1`, no_key: true } },
      answer: 'done without a key',
    })
    expect(server.requests.length).toBeGreaterThan(0)
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${localPlaceholderKey}`)
      expect(JSON.stringify(request)).not.toContain(key)
    }
    // The next form remembers it, like the base URL it goes with.
    expect((await rig.engine.handlers.getJobDefaults({})).job).toMatchObject({ base_url: `${server.url}/v1`, no_key: true })
  })
})

describe('recent projects and path completion', () => {
  it('lists recent projects most recent first, and marks a deleted folder missing', async () => {
    const dir = tempDir()
    const [alpha, beta, gamma] = ['alpha', 'beta', 'gamma'].map((name) => {
      const folder = path.join(dir, name)
      mkdirSync(folder)
      return folder
    }) as [string, string, string]
    const rig = makeEngine()
    const { handlers } = rig.engine
    for (const folder of [alpha, beta, gamma, alpha]) {
      await handlers.openProject({ path: folder })
      // Apart by more than the timestamps' millisecond, as a person opening folders is.
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect((await handlers.listRecentProjects({})).projects.map((project) => project.name)).toEqual(['alpha', 'gamma', 'beta'])

    rmSync(beta, { recursive: true })
    const projects = (await handlers.listRecentProjects({})).projects
    expect(projects.map((project) => [project.name, project.missing])).toEqual([
      ['alpha', false],
      ['gamma', false],
      ['beta', true],
    ])
    expect(projects[0]).toEqual({ path: alpha, name: 'alpha', opened_at: expect.any(String), missing: false })
  })

  it('completes folders only, shows hidden ones only for a dot prefix, and expands ~', async () => {
    const dir = tempDir()
    for (const folder of ['alpha', 'alpine', 'beta', '.hidden', '.hatch']) mkdirSync(path.join(dir, folder))
    writeFileSync(path.join(dir, 'alpha.txt'), 'a file\n')
    writeFileSync(path.join(dir, '.hfile'), 'a hidden file\n')
    symlinkSync(path.join(dir, 'alpha'), path.join(dir, 'alias'))
    symlinkSync(path.join(dir, 'alpha.txt'), path.join(dir, 'alias.txt'))
    const { handlers } = makeEngine().engine
    const entries = async (prefix: string) => (await handlers.completePath({ prefix })).entries
    const sep = path.sep

    expect(await entries(path.join(dir, 'al'))).toEqual([`${dir}/alias${sep}`, `${dir}/alpha${sep}`, `${dir}/alpine${sep}`])
    expect(await entries(dir + sep)).toEqual(['alias', 'alpha', 'alpine', 'beta'].map((name) => `${dir}/${name}${sep}`))
    expect(await entries(path.join(dir, '.h'))).toEqual([`${dir}/.hatch${sep}`, `${dir}/.hidden${sep}`])
    expect(await entries(path.join(dir, 'nothing-here', 'x'))).toEqual([])

    const home = path.join(dir, 'home')
    mkdirSync(path.join(home, 'projects'), { recursive: true })
    mkdirSync(path.join(home, 'prose'))
    writeFileSync(path.join(home, 'profile.txt'), '')
    const savedHome = process.env.HOME
    process.env.HOME = home
    cleanups.push(() => {
      process.env.HOME = savedHome
    })
    expect(os.homedir()).toBe(home)
    expect(await entries('~/pro')).toEqual([`${home}/projects${sep}`, `${home}/prose${sep}`])
    expect(await entries('~/')).toEqual([`${home}/projects${sep}`, `${home}/prose${sep}`])
  })
})

describe('a real job through the API', () => {
  it('openai_compatible: the root delegates to 2 explore children that read real files; AGENTS.md reaches the root only', async () => {
    const project = shopProject(tempDir())
    const rig = makeEngine({ project })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        childScript('AREA-DOCS'),
        childScript('AREA-CART'),
        { match: 'ROOT-TASK', turns: [delegate(), (view) => finish(`Merged ${view.tool_results.length} reports.`)] },
      ]),
    })
    cleanups.push(() => server.close())

    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    await withTimeout(rig.engine.waitForJob(job_id), 20_000, 'the job to end')

    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    const children = tree.agents.filter((agent) => agent.depth === 1)
    expect(children.map((child) => [child.label, child.profile, child.status]).sort()).toEqual([
      ['AREA-CART', 'explore', 'completed'],
      ['AREA-DOCS', 'explore', 'completed'],
    ])
    const events = await jobEvents(rig.engine, job_id)
    for (const child of children) {
      const end = events.find((event) => event.type === 'agent.end' && event.agent_id === child.id)!
      const file = areas[child.label as keyof typeof areas]
      expect((end.data.result as { summary: string }).summary).toBe(
        `${file} starts with: ${readFileSync(path.join(project, file), 'utf8').split('\n')[0]}`,
      )
    }
    const rootEnd = events.find((event) => event.type === 'agent.end' && event.depth === 0)!
    expect(rootEnd.data.result).toBe('Merged 2 reports.')

    // The project's instructions are in the root's system prompt, as the server received it, and nowhere else.
    const views = server.requests.map(openaiView)
    const rootViews = views.filter((view) => view.first_user.startsWith('ROOT-TASK'))
    const childViews = views.filter((view) => !view.first_user.startsWith('ROOT-TASK'))
    expect(rootViews).toHaveLength(2)
    expect(childViews).toHaveLength(4)
    for (const view of rootViews) {
      expect(view.system).toContain('AGENTS-MARKER: always run the tests with `npm test` before finishing.')
      expect(view.system).toContain('Project instructions (AGENTS.md)')
      expect(view.system).not.toContain('CLAUDE-MARKER')
    }
    for (const view of childViews) {
      expect(view.system).not.toContain('AGENTS-MARKER')
      expect(view.first_user).not.toContain('AGENTS-MARKER')
    }
    const starts = events.filter((event) => event.type === 'agent.start')
    expect(starts.find((event) => event.depth === 0)?.data.project_instructions).toEqual({
      file: 'AGENTS.md',
      bytes: Buffer.byteLength(agentsInstructions),
      truncated: false,
    })
    for (const start of starts.filter((event) => event.depth === 1)) expect(start.data).not.toHaveProperty('project_instructions')
  })

  it('a project with only CLAUDE.md gives the root that file', async () => {
    const project = shopProject(tempDir(), { 'CLAUDE.md': claudeInstructions })
    const rig = makeEngine({ project })
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('read the rules')] }]) })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    await withTimeout(rig.engine.waitForJob(job_id), 15_000, 'the job to end')
    expect(openaiView(server.requests[0]!).system).toContain('CLAUDE-MARKER: prefer small functions.')
    expect(openaiView(server.requests[0]!).system).toContain('Project instructions (CLAUDE.md)')
    const start = (await jobEvents(rig.engine, job_id)).find((event) => event.type === 'agent.start')!
    expect(start.data.project_instructions).toEqual({ file: 'CLAUDE.md', bytes: Buffer.byteLength(claudeInstructions), truncated: false })
  })

  it('anthropic with a stored key: the key reaches the server and nowhere else (trace, exports, database, agent environments)', async () => {
    const key = 'sk-ant-stored-in-settings-SECRET-4242'
    const environmentKey = 'sk-ant-in-the-app-environment-SECRET-9999'
    // The app was started with a key in its environment: agents must not inherit it either.
    const savedKey = process.env.ANTHROPIC_API_KEY
    process.env.ANTHROPIC_API_KEY = environmentKey
    cleanups.push(() => {
      if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY
      else process.env.ANTHROPIC_API_KEY = savedKey
    })
    const project = shopProject(tempDir())
    const rig = makeEngine({ project })
    await rig.engine.handlers.setProviderKey({ provider: 'anthropic', key })

    let bashOutput: string | null = null
    const server: FakeServer<unknown> = (await startFakeAnthropic({
      route: anthropicConversations([
        childScript('AREA-DOCS'),
        childScript('AREA-CART'),
        {
          match: 'ROOT-TASK',
          turns: [
            delegate([{ name: 'bash', arguments: { command: 'echo "[$ANTHROPIC_API_KEY][$OPENAI_API_KEY]"' } }]),
            (view) => {
              bashOutput = view.tool_results.find((result) => result.tool_call_id === 'toolu_t0_0')?.content ?? null
              return finish(`Merged ${view.tool_results.length - 1} reports.`)
            },
          ],
        },
      ]),
    })) as FakeServer<unknown>
    cleanups.push(() => server.close())
    // A job's base URL override gets the key only when it is the one saved for the provider.
    const elsewhere = goodJob({ provider: 'anthropic', base_url: 'http://127.0.0.1:9', model: 'claude-haiku-4-5', light_model: null })
    const refused = await createDispatcher(rig.engine.handlers)('startJob', { kind: 'agent', job: elsewhere })
    expect(refused).toMatchObject({
      ok: false,
      error: { fields: { base_url: expect.stringContaining('only to the base URL in Settings') } },
    })
    await rig.engine.handlers.setProviderConfig({
      provider: 'anthropic',
      base_url: server.url,
      model: 'claude-haiku-4-5',
      light_model: null,
    })

    const { job_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: goodJob({ provider: 'anthropic', base_url: server.url, model: 'claude-haiku-4-5', light_model: 'claude-haiku-4-5' }),
    })
    // While the children run, look at every live agent's process environment.
    await rig.waitFor((event) => event.type === 'subagent.start' && event.job_id === job_id)
    const tree = await rig.engine.handlers.getTree({ job_id })
    const environments = tree.agents
      .map((agent) => rig.engine.supervisor.pidOf(agent.id))
      .filter((pid): pid is number => pid !== undefined)
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`).toString('utf8')
        } catch {
          return null
        }
      })
      .filter((text): text is string => text !== null)
    expect(environments.length).toBeGreaterThanOrEqual(2)
    for (const environment of environments) {
      expect(environment).not.toContain(key)
      expect(environment).not.toContain(environmentKey)
      expect(environment.split('\0').some((entry) => entry.startsWith('ANTHROPIC_API_KEY='))).toBe(false)
    }

    await withTimeout(rig.engine.waitForJob(job_id), 20_000, 'the job to end')
    expect((await rig.engine.handlers.getTree({ job_id })).job.status).toBe('completed')
    expect(bashOutput).toContain('[][]')

    expect(server.requests.length).toBe(6)
    for (const request of server.requests) expect(keySent(request)).toBe(key)

    const events = await jobEvents(rig.engine, job_id)
    expect(events.some((event) => event.type === 'tool.result' && JSON.stringify(event.data).includes('[][]'))).toBe(true)
    const jsonl = path.join(rig.dir, 'trace.jsonl')
    const otlp = path.join(rig.dir, 'trace.otlp.json')
    await rig.engine.exportJsonl(job_id, jsonl)
    await rig.engine.exportTrace(job_id, otlp, 'otlp')
    const places: Record<string, string> = {
      events: JSON.stringify(events),
      live: JSON.stringify(rig.events),
      jsonl: readFileSync(jsonl, 'utf8'),
      otlp: readFileSync(otlp, 'utf8'),
      db: readIfThere(rig.dbFile) + readIfThere(`${rig.dbFile}-wal`),
    }
    expect(places.otlp).toContain('resourceSpans')
    expect(places.jsonl).toContain('claude-haiku-4-5')
    for (const [place, text] of Object.entries(places)) {
      expect(text.includes(key), `the stored key in ${place}`).toBe(false)
      expect(text.includes(environmentKey), `the environment key in ${place}`).toBe(false)
    }
  })
})

describe('approvals', () => {
  it("the root's risky bash waits for the user; killing the job denies it as the user, and the file stays", async () => {
    const project = shopProject(tempDir())
    const rig = makeEngine({ project })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'ROOT-TASK',
          turns: [{ text: 'Cleaning up.', tool_calls: [{ name: 'bash', arguments: { command: 'rm notes.txt' } }] }, finish('cleaned')],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const dispatch = createDispatcher(rig.engine.handlers)
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: goodJob({ base_url: `${server.url}/v1` }) })
    const request = await rig.waitFor((event) => event.type === 'approval.request')

    const tree = await rig.engine.handlers.getTree({ job_id })
    const root = tree.agents.find((agent) => agent.depth === 0)!
    expect(tree.approvals).toEqual([
      {
        approval_id: request.data.approval_id,
        job_id,
        agent_id: root.id,
        path: ['root'],
        label: 'root',
        profile: 'general',
        tool: 'bash',
        command: 'rm notes.txt',
        reason: expect.stringContaining('deletes files'),
        sandboxed: true,
      },
    ])
    expect((await rig.engine.handlers.listJobs({})).waiting).toEqual({ [job_id]: [request.data.approval_id] })

    expect(await rig.engine.handlers.killAgent({ agent_id: root.id })).toEqual({ killed: [root.id] })
    // The kill is the answer: nothing is left to approve, and the old dialog cannot approve it.
    expect((await rig.engine.handlers.getTree({ job_id })).approvals).toEqual([])
    expect((await rig.engine.handlers.listJobs({})).waiting).toEqual({})
    const late = await dispatch('decideApproval', { approval_id: request.data.approval_id as string, decision: 'approved' })
    expect(late).toMatchObject({ ok: false, error: { code: 'not_found' } })

    await withTimeout(rig.engine.waitForJob(job_id), 15_000, 'the job to end')
    const decisions = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'approval.decision')
    expect(decisions.map((event) => event.data)).toEqual([
      expect.objectContaining({ approval_id: request.data.approval_id, decision: 'denied', by: 'user' }),
    ])
    expect(readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('keep me\n')
    const after = await rig.engine.handlers.listJobs({})
    expect(after.waiting).toEqual({})
    // Format 1 keeps the status `cancelled`; the job.end's reason and the stored job say the user killed it.
    expect(after.jobs[0]).toMatchObject({ status: 'cancelled', end_reason: 'killed' })
    const ended = (await rig.engine.handlers.getReplayEvents({ job_id })).events.find((event) => event.type === 'job.end')
    expect(ended?.data).toMatchObject({ status: 'cancelled', reason: 'killed' })
    expect(server.requests).toHaveLength(1)
  })
})
