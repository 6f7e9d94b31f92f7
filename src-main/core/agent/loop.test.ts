import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ProviderError } from '../providers/errors'
import type { Provider } from '../providers/types'
import type { Envelope } from '../trace/events'
import { emptyReplyNudge } from './loop'
import { RecordingSupervisor, makeInit, runScripted } from './testing'
import { builtinTools } from './tools/builtin'
import { defineTool } from './tools/types'

let project: string
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-loop-'))
  await writeFile(join(project, 'notes.txt'), 'alpha\nbeta\n')
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

const envelope = (agentId: string, summary: string): Envelope => ({
  status: 'completed',
  profile: 'explore',
  agent_id: agentId,
  summary,
  result: { summary },
  terminal_reason: 'completed',
  stats: { steps: 1, tool_calls: 0, input_tokens: 10, output_tokens: 5, cost_usd: 0, model: 'light', duration_ms: 3 },
})

describe('runAgent with the scripted provider', () => {
  it('reads a file and completes through attempt_completion, streaming every step', async () => {
    const { outcome, supervisor, requests } = await runScripted(
      makeInit(project, [
        { text: 'Reading.', tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'notes.txt has two lines' } }] },
      ]),
    )
    // The ending and nothing counted: the supervisor counts steps, usage and tool calls.
    expect(outcome).toEqual({
      status: 'completed',
      terminal_reason: 'completed',
      result: 'notes.txt has two lines',
      summary: 'notes.txt has two lines',
    })
    expect(requests).toHaveLength(2)
    // The second call carries the file read in the first.
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'tool', content: '1\talpha\n2\tbeta', tool_call_id: 'call_1_0' })

    expect(supervisor.data('message').map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool'])
    expect(supervisor.data('message')[2]).toMatchObject({
      content: 'Reading.',
      tool_calls: [{ id: 'call_1_0', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
    })
    expect(supervisor.data('tool.call')[0]).toEqual({ call_id: 'call_1_0', name: 'read_file', arguments: { path: 'notes.txt' } })
    expect(supervisor.data('tool.result')[0]).toEqual({
      call_id: 'call_1_0',
      name: 'read_file',
      ok: true,
      output: '1\talpha\n2\tbeta',
      truncated: false,
      duration_ms: 0,
    })
    expect(supervisor.data('message')[3]).toEqual({ role: 'tool', content: '1\talpha\n2\tbeta', tool_call_id: 'call_1_0' })
  })

  it('ends with the text of a reply that calls no tool', async () => {
    const long = `The answer is 42. ${'More detail. '.repeat(40)}`
    const { outcome, supervisor, requests } = await runScripted(makeInit(project, [{ text: long }]))
    expect(outcome).toMatchObject({ status: 'completed', terminal_reason: 'completed', result: long })
    expect(requests).toHaveLength(1)
    expect(supervisor.data('tool.call')).toEqual([])
    expect(outcome.summary.length).toBeLessThanOrEqual(300)
    expect(outcome.summary.startsWith('The answer is 42.')).toBe(true)
    expect(outcome.summary).not.toContain('\n')
  })

  it('runs two task calls of one message concurrently and returns their results in call order', async () => {
    const supervisor = new RecordingSupervisor()
    const seen: string[] = []
    let overlapped = false
    let answeredAlone = false
    supervisor.onSpawn = (message) => {
      seen.push(message.request.description)
      if (seen.length < 2) {
        // Run sequentially, the loop would never ask for B: answer A late so the test fails, not hangs.
        setTimeout(() => {
          if (seen.length > 1) return
          answeredAlone = true
          supervisor.link.receive({
            type: 'spawn_result',
            call_id: message.call_id,
            result: { ok: true, envelope: envelope('child_a', 'A done') },
          })
        }, 200)
        return
      }
      overlapped = !answeredAlone
      // Answer the second first: the results must still come back in call order.
      supervisor.link.receive({ type: 'spawn_result', call_id: 'call_1_1', result: { ok: true, envelope: envelope('child_b', 'B done') } })
      supervisor.link.receive({ type: 'spawn_result', call_id: 'call_1_0', result: { ok: true, envelope: envelope('child_a', 'A done') } })
    }
    const task = (label: string) => ({
      name: 'task',
      arguments: { description: label, prompt: `Look at ${label}`, subagent_type: 'explore' },
    })
    const { outcome } = await runScripted(
      makeInit(project, [{ tool_calls: [task('A'), task('B')] }, { text: 'Both done.' }]),
      {},
      supervisor,
    )

    expect(overlapped).toBe(true)
    expect(seen).toEqual(['A', 'B'])
    const spawns = supervisor.sent.filter((message) => message.type === 'spawn')
    expect(spawns).toEqual([
      { type: 'spawn', call_id: 'call_1_0', request: { description: 'A', prompt: 'Look at A', subagent_type: 'explore' } },
      { type: 'spawn', call_id: 'call_1_1', request: { description: 'B', prompt: 'Look at B', subagent_type: 'explore' } },
    ])
    const toolMessages = supervisor.data('message').filter((message) => message.role === 'tool')
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_1_0', 'call_1_1'])
    expect(JSON.parse(toolMessages[0]!.content as string)).toMatchObject({ agent_id: 'child_a', summary: 'A done' })
    expect(JSON.parse(toolMessages[1]!.content as string)).toMatchObject({ agent_id: 'child_b', summary: 'B done' })
    // tool.result events follow completion order; the history follows call order.
    expect(supervisor.data('tool.result').map((result) => result.call_id)).toEqual(['call_1_1', 'call_1_0'])
    expect(outcome).toMatchObject({ status: 'completed', result: 'Both done.' })
  })

  it('turns a spawn error into an error tool result and goes on', async () => {
    const supervisor = new RecordingSupervisor()
    supervisor.onSpawn = (message) =>
      supervisor.link.receive({ type: 'spawn_result', call_id: message.call_id, result: { ok: false, error: 'max_depth reached' } })
    const { outcome } = await runScripted(
      makeInit(project, [
        { tool_calls: [{ name: 'task', arguments: { description: 'x', prompt: 'y', subagent_type: 'explore' } }] },
        { text: 'Did it myself.' },
      ]),
      {},
      supervisor,
    )
    expect(supervisor.data('tool.result')[0]).toMatchObject({ ok: false, output: 'Error: the subagent did not run: max_depth reached' })
    expect(outcome).toMatchObject({ status: 'completed', result: 'Did it myself.' })
  })

  it('answers bad arguments, unknown tools and tools outside the allowlist with errors and goes on', async () => {
    const { outcome, supervisor } = await runScripted(
      makeInit(
        project,
        [
          {
            tool_calls: [
              { name: 'read_file', arguments: { path: 7 } },
              { name: 'teleport', arguments: {} },
              { name: 'task', arguments: { description: 'x', prompt: 'y', subagent_type: 'explore' } },
              { name: 'read_file', arguments: { path: 'notes.txt', limit: 1 } },
            ],
          },
          { text: 'Done anyway.' },
        ],
        { name: 'worker' },
      ),
    )
    const results = supervisor.data('tool.result')
    expect(results.map((result) => result.ok)).toEqual([false, false, false, true])
    expect(results[0]!.output).toMatch(/^Error: invalid arguments for read_file:[\s\S]*path/)
    expect(results[1]!.output).toMatch(/no tool named "teleport"/)
    expect(results[2]!.output).toMatch(/"task" is not allowed for this agent/)
    expect(results[3]!.output).toContain('1\talpha')
    expect(outcome).toMatchObject({ status: 'completed', result: 'Done anyway.' })
    expect(supervisor.sent.some((message) => message.type === 'spawn')).toBe(false)
  })

  it('offers the model only the allowlisted, implemented tools plus attempt_completion (and await_tasks and merge_branch with task)', async () => {
    const offered: string[][] = []
    const provider: Provider = {
      kind: 'spy',
      model: 'spy-model',
      async *stream(request) {
        offered.push(request.tools.map((tool) => tool.name))
        yield { type: 'text_delta', text: 'ok' }
        yield {
          type: 'finish',
          usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
          cost_usd: null,
          finish_reason: 'stop',
        }
      },
    }
    await runScripted(makeInit(project, [], { tools: ['read_file'] }), { provider })
    await runScripted(makeInit(project, [], { name: 'general' }), { provider })
    expect(offered).toEqual([
      ['read_file', 'attempt_completion'],
      ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash', 'task', 'await_tasks', 'merge_branch', 'attempt_completion'],
    ])
  })

  it("lists the spawnable profiles in the task tool's description", async () => {
    let taskDescription = ''
    const provider: Provider = {
      kind: 'spy',
      model: 'spy-model',
      async *stream(request) {
        taskDescription = request.tools.find((tool) => tool.name === 'task')?.description ?? ''
        yield { type: 'text_delta', text: 'ok' }
        yield {
          type: 'finish',
          usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
          cost_usd: null,
          finish_reason: 'stop',
        }
      },
    }
    const init = { ...makeInit(project, [], { name: 'general' }), spawnable_profiles: '- explore: read-only survey' }
    await runScripted(init, { provider })
    expect(taskDescription).toContain('Delegate a self-contained subtask')
    expect(taskDescription).toContain('- explore: read-only survey')
  })

  it('returns a throwing tool error to the model, records an error event, and goes on', async () => {
    const exploding = defineTool({
      name: 'read_file',
      description: 'explodes',
      parameters: z.object({ path: z.string() }),
      async execute() {
        throw new Error('disk on fire')
      },
    })
    const tools = [exploding, ...builtinTools.filter((tool) => tool.name !== 'read_file')]
    const { outcome, supervisor, requests } = await runScripted(
      makeInit(project, [{ tool_calls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { text: 'Recovered.' }]),
      { tools },
    )
    expect(supervisor.data('tool.result')[0]).toMatchObject({ ok: false, output: 'Error: read_file failed: disk on fire' })
    expect(requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      content: 'Error: read_file failed: disk on fire',
      tool_call_id: 'call_1_0',
    })
    expect(supervisor.data('error')).toEqual([{ message: 'read_file threw: disk on fire', call_id: 'call_1_0' }])
    expect(outcome).toMatchObject({ status: 'completed', result: 'Recovered.' })
  })

  it('stops at max_steps', async () => {
    const looping = Array.from({ length: 10 }, () => ({ tool_calls: [{ name: 'list_files', arguments: {} }] }))
    const { outcome, supervisor, requests } = await runScripted(
      makeInit(project, [{ text: 'Looking around.', ...looping[0] }, ...looping], { max_steps: 3 }),
    )
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'max_steps', result: 'Looking around.' })
    expect(outcome.summary).toContain('max_steps (3)')
    expect(requests).toHaveLength(3)
    expect(supervisor.data('tool.call')).toHaveLength(3)
  })

  it('stops when the total token budget is spent', async () => {
    // Every call uses 40 + 20 tokens: 60, 120, then 180 of 150, so no fourth call.
    const provider: Provider = {
      kind: 'spy',
      model: 'spy-model',
      async *stream() {
        yield { type: 'tool_call', call: { id: '', name: 'list_files', arguments: '{}' } }
        yield {
          type: 'finish',
          usage: { input_tokens: 40, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
          cost_usd: null,
          finish_reason: 'tool_calls',
        }
      },
    }
    const { outcome, requests } = await runScripted(makeInit(project, [], { total_token_budget: 150 }), { provider })
    expect(outcome).toMatchObject({
      status: 'failed',
      terminal_reason: 'token_budget',
      summary: 'stopped: used 180 tokens of a 150 token budget',
    })
    expect(requests).toHaveLength(3)
  })

  it('nudges an empty reply at most 3 times, then fails with empty_response', async () => {
    const { outcome, supervisor, requests } = await runScripted(makeInit(project, [{}, {}, { text: '  ' }, {}, { text: 'never reached' }]))
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'empty_response', result: null })
    expect(requests).toHaveLength(4)
    const nudges = supervisor.data('message').filter((message) => message.content === emptyReplyNudge)
    expect(nudges).toHaveLength(3)
  })

  it('recovers when a reply follows the nudges', async () => {
    const { outcome, requests } = await runScripted(makeInit(project, [{}, {}, {}, { text: 'Here it is.' }]))
    expect(outcome).toMatchObject({ status: 'completed', result: 'Here it is.' })
    expect(requests).toHaveLength(4)
    expect(requests[3]!.messages.at(-1)).toEqual({ role: 'user', content: emptyReplyNudge })
  })

  it('ends with provider_error when the model call fails', async () => {
    const provider: Provider = {
      kind: 'broken',
      model: 'm',
      async *stream() {
        throw new ProviderError('auth', 'invalid API key')
      },
    }
    const { outcome, supervisor, requests } = await runScripted(makeInit(project, []), { provider })
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'provider_error', summary: 'provider error: invalid API key' })
    expect(requests).toHaveLength(1)
    expect(supervisor.data('error')).toEqual([{ message: 'broken: invalid API key', code: 'auth' }])
  })

  it('stops with the abort reason while waiting for a child', async () => {
    const stop = new AbortController()
    const supervisor = new RecordingSupervisor()
    supervisor.onSpawn = () => stop.abort('killed')
    const { outcome } = await runScripted(
      makeInit(project, [
        { text: 'Delegating.', tool_calls: [{ name: 'task', arguments: { description: 'x', prompt: 'y', subagent_type: 'explore' } }] },
      ]),
      { signal: stop.signal },
      supervisor,
    )
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'killed', result: 'Delegating.' })
  })
})

describe('the project folder for the loop', () => {
  it('reads files in sub-folders by relative path', async () => {
    await mkdir(join(project, 'src'))
    await writeFile(join(project, 'src', 'a.ts'), 'export {}\n')
    const { supervisor } = await runScripted(makeInit(project, [{ tool_calls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] }]))
    expect(supervisor.data('tool.result')[0]).toMatchObject({ ok: true, output: '1\texport {}' })
  })
})
