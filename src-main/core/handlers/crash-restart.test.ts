import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import type { RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../providers/testing/fake-openai'
import { crashedToolResult } from '../supervisor/follow-ups'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'

/**
 * An agent whose process dies (SIGKILL here, as the OOM killer or a bug would end it) goes on in
 * a new process from its history as the trace holds it. Real agent processes, the real openai SDK
 * against a local server, a real SQLite file.
 */

const { cleanups, tempDir } = useCleanups('arbor-crash-restart-')

function setUp() {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  return { project, ...handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, waitMs: 20_000, cleanups }) }
}

const job = (url: string, overrides: Partial<NewJob> = {}): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: what does this shop sell?',
  provider: 'openai_compatible',
  model: 'llama3.1',
  base_url: `${url}/v1`,
  ...overrides,
})
const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const waitForGo = { tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] }
const messagesOf = (request: RecordedRequest) => (request.body as { messages: Array<{ role: string; content: string }> }).messages
const opensWith = (marker: string) => (request: RecordedRequest) => (messagesOf(request)[1]?.content ?? '').includes(marker)
const kill = (pid: number | undefined) => {
  if (pid === undefined) throw new Error('no agent process to kill')
  process.kill(pid, 'SIGKILL')
}
const sumInput = (events: TraceEvent[], agentId: string) =>
  events.reduce((sum, event) => sum + (event.type === 'llm.call' && event.agent_id === agentId ? event.data.usage.input_tokens : 0), 0)

describe('an agent process that crashes', () => {
  it('mid-tool: restarts from its history, the tool answered "interrupted by a crash", and the job completes', async () => {
    const rig = setUp()
    const server = await startFakeOpenAI({
      route: openaiConversations([{ match: 'ROOT-TASK', turns: [waitForGo, finish('DONE AFTER CRASH')] }]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(server.url) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash')
    const pid = rig.engine.supervisor.pidOf(root_agent_id)
    kill(pid)
    await rig.engine.waitForJob(job_id)

    const requests = server.requests.filter(opensWith('ROOT-TASK'))
    expect(requests).toHaveLength(2)
    const [before, after] = [messagesOf(requests[0]!), messagesOf(requests[1]!)]
    // The first request, byte for byte, then the bash call and its answer from the restart.
    expect(JSON.stringify(after.slice(0, before.length))).toBe(JSON.stringify(before))
    expect(after.slice(before.length)).toEqual([
      expect.objectContaining({ role: 'assistant' }),
      expect.objectContaining({ role: 'tool', content: crashedToolResult }),
    ])
    expect(rig.events.find((event) => event.type === 'agent.restart')).toMatchObject({
      agent_id: root_agent_id,
      data: { cause: 'crashed', signal: 'SIGKILL', from_step: 1, restart: 1, restarts_allowed: 1 },
    })
    expect(rig.engine.supervisor.pidOf(root_agent_id)).not.toBe(pid)
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.job.status).toBe('completed')
    expect(tree.answer).toBe('DONE AFTER CRASH')
    // Usage counted once: the node's totals are the sum of the calls that were made.
    expect(tree.agents[0]!.usage.input_tokens).toBe(sumInput(rig.events, root_agent_id))
    expect(rig.events.filter((event) => event.type === 'agent.start')).toHaveLength(1)
  })

  it('mid-model-call: the call it was making is made again, with the same messages', async () => {
    const rig = setUp()
    const server = await startFakeOpenAI({
      route: openaiConversations([{ match: 'ROOT-TASK', turns: [{ delay_ms: 1500, ...finish('the first never arrives') }] }]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(server.url) })
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    kill(rig.engine.supervisor.pidOf(root_agent_id))
    await rig.engine.waitForJob(job_id)
    const requests = server.requests.filter(opensWith('ROOT-TASK'))
    expect(requests).toHaveLength(2)
    expect(JSON.stringify(messagesOf(requests[1]!))).toBe(JSON.stringify(messagesOf(requests[0]!)))
    const calls = rig.events.filter((event) => event.type === 'llm.call')
    // The call the crash cut short is recorded with what was known of it (nothing), then the one that answered.
    expect(calls.map((event) => event.type === 'llm.call' && Boolean(event.data.aborted))).toEqual([true, false])
    expect((await rig.engine.handlers.getTree({ job_id })).job.status).toBe('completed')
  })

  it("a parent's crash leaves the child it waited for running: its envelope reaches the restarted parent as a message", async () => {
    const rig = setUp()
    const delegate = {
      tool_calls: [{ name: 'task', arguments: { description: 'LISTER', prompt: 'LISTER: list it', subagent_type: 'general' } }],
    }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'LISTER', turns: [waitForGo, finish('LISTED: carts')] },
        // Told its child still runs, the restarted root first tries to answer (refused: it must wait), then awaits it.
        {
          match: 'ROOT-TASK',
          turns: [delegate, { text: 'Done already?' }, { tool_calls: [{ name: 'await_tasks', arguments: {} }] }, finish('ROOT DONE')],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id, root_agent_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(server.url) })
    await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash')
    kill(rig.engine.supervisor.pidOf(root_agent_id))
    await rig.waitFor((event) => event.type === 'agent.restart')
    // The child finishes only once the restarted root's answer has been refused while it ran.
    await rig.waitFor((event) => event.type === 'message' && event.agent_id === root_agent_id && event.data.by === 'arbor')
    writeFileSync(path.join(rig.project, 'go'), '')
    await rig.engine.waitForJob(job_id)

    const rootRequests = server.requests.filter(opensWith('ROOT-TASK'))
    const afterRestart = messagesOf(rootRequests[1]!)
    expect(afterRestart.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('still runs in the background') })
    // The answer it tried while the child ran was refused, naming the child.
    expect(JSON.stringify(messagesOf(rootRequests[2]!).at(-1))).toContain('LISTER')
    // The child ran once, and its envelope reached the root as Arbor's message.
    expect(server.requests.filter(opensWith('LISTER'))).toHaveLength(2)
    expect(JSON.stringify(messagesOf(rootRequests.at(-1)!))).toContain('LISTED: carts')
    expect(rig.events.filter((event) => event.type === 'agent.start')).toHaveLength(2)
    const tree = await rig.engine.handlers.getTree({ job_id })
    expect(tree.agents.map((agent) => agent.status)).toEqual(['completed', 'completed'])
    expect(tree.answer).toBe('ROOT DONE')
  })

  it('with restart_crashed 0 a crash ends the agent as before: its parent gets a crashed envelope', async () => {
    const rig = setUp()
    const delegate = {
      tool_calls: [{ name: 'task', arguments: { description: 'LISTER', prompt: 'LISTER: list it', subagent_type: 'general' } }],
    }
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'LISTER', turns: [waitForGo] },
        { match: 'ROOT-TASK', turns: [delegate, finish('ROOT DONE')] },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(server.url, { restart_crashed: 0 }) })
    const call = await rig.waitFor((event) => event.type === 'tool.call' && event.data.name === 'bash')
    kill(rig.engine.supervisor.pidOf(call.agent_id!))
    await rig.engine.waitForJob(job_id)
    expect(rig.events.filter((event) => event.type === 'agent.restart')).toEqual([])
    const end = rig.events.find((event) => event.type === 'subagent.end')
    expect(end).toMatchObject({ data: { envelope: { status: 'failed', terminal_reason: 'crashed' } } })
    expect((await rig.engine.handlers.getTree({ job_id })).job.status).toBe('completed')
  })
})
