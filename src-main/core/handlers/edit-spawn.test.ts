import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { type Engine } from '../engine'
import type { Environment } from '../providers/connection'
import type { RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../providers/testing/fake-openai'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * Editing a held or queued spawn's prompt through the API (the dispatcher, so the zod parse runs
 * as for IPC and the WebSocket), with real agent processes against a local server that streams
 * the OpenAI wire format: the child's first model request is the proof of what it started with.
 */

const { cleanups, tempDir } = useCleanups('arbor-edit-spawn-')

function makeEngine(options: { env?: Environment } = {}) {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(path.join(project, 'src'), { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n\nSells things; totals carts.\n')
  writeFileSync(path.join(project, 'src/cart.ts'), 'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0)\n')
  return { dir, ...handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, env: options.env, warmPool: 0, cleanups }) }
}

const job = (baseUrl: string, overrides: Partial<NewJob> = {}): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: find where the cart total is computed',
  provider: 'openai_compatible',
  base_url: baseUrl,
  model: 'llama3.1',
  ...overrides,
})

const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const spawn = (description: string, prompt: string) => ({
  name: 'task',
  arguments: { description, prompt, subagent_type: 'general' },
})

type Body = { messages?: Array<{ role: string; content: string }> }
/** A request's first user message: an agent's task (the child's is its description, then its prompt). */
const firstUser = (request: RecordedRequest): string =>
  (request.body as Body).messages?.find((message) => message.role === 'user')?.content ?? ''

async function jobEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events.sort((a, b) => a.seq - b.seq)
}

const edits = (events: TraceEvent[]) => events.filter((event) => event.type === 'control' && event.data.action === 'edit_spawn')

describe("editing a held spawn's prompt", () => {
  it('starts the child with the edited prompt, not its parent’s, records the edit, and refuses bad edits changing nothing', async () => {
    const secret = 'sk-edit-spawn-secret-0123456789'
    const rig = makeEngine({ env: { OPENAI_API_KEY: secret } })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'NEW-PROMPT', turns: [finish('cart total is in src/cart.ts')] },
        { match: 'OLD-PROMPT', turns: [finish('surveyed everything')] },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [spawn('CHILD-E', 'OLD-PROMPT: survey the whole shop.')] }, finish('done')] },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({
      kind: 'agent',
      job: job(`${server.url}/v1`, { spawn_paused: true }),
    })
    const held = await rig.waitFor((event) => event.type === 'subagent.held')
    const child = String(held.data.child_agent_id)

    // Bad edits: each refused with a clear error, and nothing recorded.
    const long = 'x'.repeat(32 * 1024 + 1)
    expect(await rig.dispatch('editSpawn', { agent_id: child, prompt: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('the prompt is empty') },
    })
    expect(await rig.dispatch('editSpawn', { agent_id: child, prompt: long })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('32 KiB') },
    })
    expect(await rig.dispatch('editSpawn', { agent_id: 'agent_nobody', prompt: 'hello' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    expect(await rig.dispatch('editSpawn', { agent_id: root_agent_id, prompt: 'a new task for the root' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('only a held or queued spawn') },
    })
    expect(await rig.dispatch('editSpawn', { agent_id: child, prompt: 'fine', extra: true })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    })
    expect(edits(await jobEvents(rig.engine, job_id))).toHaveLength(0)

    // The edit: redacted as the user's words are, recorded on the child with the old prompt.
    const prompt = `NEW-PROMPT: only read src/cart.ts (key ${secret}).`
    const answer = await rig.dispatch('editSpawn', { agent_id: child, prompt: `  ${prompt}\n` })
    const recorded = 'NEW-PROMPT: only read src/cart.ts (key [redacted key]).'
    expect(answer).toEqual({ ok: true, value: { agent_id: child, prompt: recorded } })
    let tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.find((agent) => agent.id === child)).toMatchObject({ status: 'held', task: recorded })

    await rig.engine.handlers.setSpawnPaused({ job_id, paused: false })
    await rig.engine.waitForJob(job_id)

    // The child's every request opens with the edited prompt; the old one never reached it.
    const childRequests = server.requests.filter((request) => firstUser(request).includes('CHILD-E'))
    expect(childRequests.length).toBeGreaterThan(0)
    for (const request of childRequests) {
      expect(firstUser(request)).toContain(recorded)
      expect(firstUser(request)).not.toContain('OLD-PROMPT')
    }
    expect(server.requests.some((request) => JSON.stringify(request.body).includes(secret))).toBe(false)

    const events = await jobEvents(rig.engine, job_id)
    expect(edits(events).map((event) => [event.agent_id, event.data])).toEqual([
      [child, { action: 'edit_spawn', target: child, value: recorded, previous: 'OLD-PROMPT: survey the whole shop.', by: 'user' }],
    ])
    const childStart = events.find((event) => event.type === 'agent.start' && event.agent_id === child)
    expect(childStart?.data.task).toBe(`CHILD-E\n\n${recorded}`)
    // What the parent's events say of the child after the edit is the edited prompt.
    const parentSays = events.filter(
      (event) => (event.type === 'subagent.start' || event.type === 'subagent.end') && event.agent_id === root_agent_id,
    )
    expect(parentSays.map((event) => [event.type, event.data.task])).toEqual([
      ['subagent.start', recorded],
      ['subagent.end', recorded],
    ])
    tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.find((agent) => agent.id === child)).toMatchObject({ status: 'completed', task: `CHILD-E\n\n${recorded}` })

    // A spawn that has run cannot be edited, nor one of an imported (read-only) job.
    expect(await rig.dispatch('editSpawn', { agent_id: child, prompt: 'too late' })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    })
    const file = path.join(rig.dir, 'trace.jsonl')
    await rig.engine.handlers.exportJob({ job_id, path: file })
    const other = makeEngine()
    const imported = await other.engine.handlers.importTrace({ path: file })
    expect(await other.dispatch('editSpawn', { agent_id: child, prompt: 'from an import' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('read-only') },
    })
    expect(edits(await jobEvents(other.engine, imported.job_id))).toHaveLength(1)
    expect(edits(await jobEvents(rig.engine, job_id))).toHaveLength(1)
  })

  it('edits a queued spawn: it starts with the new prompt when a slot frees', async () => {
    const rig = makeEngine()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        // The first child takes the only slot and holds it until it is killed.
        { match: 'CHILD-SLOW', turns: [{ delay_ms: 60_000, ...finish('never') }] },
        { match: 'QUEUED-NEW', turns: [finish('read the README')] },
        { match: 'QUEUED-OLD', turns: [finish('read everything')] },
        {
          match: 'ROOT-TASK',
          turns: [
            { tool_calls: [spawn('CHILD-SLOW', 'CHILD-SLOW: take your time.'), spawn('CHILD-Q', 'QUEUED-OLD: read everything.')] },
            finish('done'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`, { max_concurrent_children: 1 }) })
    const queued = await rig.waitFor((event) => event.type === 'subagent.queued')
    const child = String(queued.data.child_agent_id)
    expect(await rig.dispatch('editSpawn', { agent_id: child, prompt: 'QUEUED-NEW: read README.md only.' })).toMatchObject({ ok: true })
    const slow = await rig.waitFor((event) => event.type === 'agent.start' && event.data.label === 'CHILD-SLOW')
    await rig.engine.handlers.killAgent({ agent_id: slow.agent_id! })
    await rig.engine.waitForJob(job_id)

    const childRequests = server.requests.filter((request) => firstUser(request).includes('CHILD-Q'))
    expect(childRequests.length).toBeGreaterThan(0)
    for (const request of childRequests) {
      expect(firstUser(request)).toContain('QUEUED-NEW: read README.md only.')
      expect(firstUser(request)).not.toContain('QUEUED-OLD')
    }
    const events = await jobEvents(rig.engine, job_id)
    expect(edits(events).map((event) => [event.agent_id, event.data.previous])).toEqual([[child, 'QUEUED-OLD: read everything.']])
    const { agents } = await rig.engine.handlers.getTree({ job_id })
    expect(agents.find((agent) => agent.id === child)?.status).toBe('completed')
  })
})
