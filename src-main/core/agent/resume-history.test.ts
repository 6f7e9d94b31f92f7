import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { makeInit, RecordingSupervisor, runScripted } from './testing'
import { attemptCompletionTool } from './tools/attempt-completion'
import { defineTool } from './tools/types'
import type { Provider, ProviderEvent, ProviderRequest } from '../providers/types'
import type { TraceEvent } from '../trace/events'
import { rebuildHistory, unfinishedToolResult } from '../protocol/resume-history'

/** A tool answering `size` characters, and a model that calls it with given usage, then says done. */
const readTool = defineTool({
  name: 'read_file',
  description: 'stub',
  parameters: z.object({ size: z.number() }),
  async execute(args) {
    return 'x'.repeat(args.size)
  },
})

function model(turns: Array<{ size?: number; input_tokens: number }>): { provider: Provider; requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = []
  return {
    requests,
    provider: {
      kind: 'fake',
      model: 'fake-model',
      async *stream(request): AsyncGenerator<ProviderEvent> {
        requests.push({ ...request, messages: structuredClone(request.messages) })
        const step = requests.length
        const turn = turns[step - 1]
        if (turn?.size !== undefined) {
          yield { type: 'tool_call', call: { id: `call_${step}`, name: 'read_file', arguments: JSON.stringify({ size: turn.size }) } }
        } else {
          yield { type: 'text_delta', text: 'done' }
        }
        const usage = {
          input_tokens: turn?.input_tokens ?? 10,
          output_tokens: 5,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        }
        yield { type: 'finish', usage, cost_usd: null, finish_reason: turn?.size !== undefined ? 'tool_calls' : 'stop' }
      },
    },
  }
}

/** What the agent sent as trace events, as the store would hand them back (seq order). */
function asTrace(sent: Array<{ event_type: string; data: Record<string, unknown> }>): TraceEvent[] {
  return sent.map(
    (event, index) =>
      ({
        type: event.event_type,
        seq: index + 1,
        ts: '2025-01-01T00:00:00.000Z',
        job_id: 'job',
        agent_id: 'agent',
        parent_id: null,
        depth: 0,
        data: event.data,
      }) as TraceEvent,
  )
}

describe('rebuildHistory', () => {
  it("is exactly the loop's history when it ended: compactions and the user's messages included", async () => {
    const { provider, requests } = model([
      { size: 800, input_tokens: 300 },
      { size: 800, input_tokens: 500 },
      { size: 800, input_tokens: 800 },
      { size: 800, input_tokens: 500 },
      { size: 800, input_tokens: 800 },
      { input_tokens: 100 },
    ])
    const init = makeInit('/tmp', [], { name: 'worker', context_token_budget: 1000, tools: ['read_file', 'attempt_completion'] })
    const { supervisor } = await runScripted(init, { provider, tools: [readTool, attemptCompletionTool] })
    const events = asTrace(supervisor.events())
    expect(events.filter((event) => event.type === 'context.compact').length).toBeGreaterThanOrEqual(2)

    const rebuilt = rebuildHistory(events)
    expect('error' in rebuilt).toBe(false)
    if ('error' in rebuilt) return
    // What the last call was sent, then the reply that ended the run.
    expect(rebuilt.messages).toEqual([...requests.at(-1)!.messages, { role: 'assistant', content: 'done' }])
    expect(rebuilt.closing).toEqual([])
  })

  it('delivered steers are part of the history, as the model got them', async () => {
    const { provider, requests } = model([{ size: 10, input_tokens: 10 }, { input_tokens: 10 }])
    const init = makeInit('/tmp', [], { name: 'worker', tools: ['read_file', 'attempt_completion'] })
    const supervisor = new RecordingSupervisor()
    supervisor.link.receive({ type: 'steer', steer_id: 'steer_1', text: 'look at cart.ts', sent_at: '2025-01-01T00:00:00.000Z' })
    await runScripted(init, { provider, tools: [readTool, attemptCompletionTool] }, supervisor)
    const rebuilt = rebuildHistory(asTrace(supervisor.events()))
    if ('error' in rebuilt) throw new Error(rebuilt.error)
    expect(rebuilt.messages).toEqual([...requests.at(-1)!.messages, { role: 'assistant', content: 'done' }])
    expect(rebuilt.messages.some((message) => message.role === 'user' && message.content.includes('look at cart.ts'))).toBe(true)
  })

  it('closes the tool calls a stopped agent left open: with their recorded output, else a note', () => {
    const message = (data: Record<string, unknown>) => ({ event_type: 'message', data })
    const events = asTrace([
      message({ role: 'system', content: 'sys' }),
      message({ role: 'user', content: 'task' }),
      message({
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', name: 'read_file', arguments: '{}' },
          { id: 'b', name: 'bash', arguments: '{}' },
        ],
      }),
      { event_type: 'tool.result', data: { call_id: 'a', name: 'read_file', ok: true, output: 'FILE', truncated: false, duration_ms: 1 } },
    ])
    const rebuilt = rebuildHistory(events)
    if ('error' in rebuilt) throw new Error(rebuilt.error)
    expect(rebuilt.messages).toHaveLength(3)
    expect(rebuilt.closing).toEqual([
      { role: 'tool', content: 'FILE', tool_call_id: 'a' },
      { role: 'tool', content: unfinishedToolResult, tool_call_id: 'b' },
    ])
  })

  it('refuses a trace that does not add up rather than resume from a history the agent never had', () => {
    expect(rebuildHistory([])).toEqual({ error: 'the trace holds none of its messages' })
    const cut = asTrace([
      { event_type: 'message', data: { role: 'system', content: 'sys' } },
      { event_type: 'message', data: { role: 'user', content: 'task' } },
      { event_type: 'context.compact', data: { before_messages: 9, after_messages: 3, note: '[x]' } },
    ])
    expect(rebuildHistory(cut)).toEqual({ error: expect.stringContaining('cut 9 messages, but the trace has 2') })
    const tool = asTrace([{ event_type: 'message', data: { role: 'tool', content: 'x' } }])
    expect(rebuildHistory(tool)).toEqual({ error: expect.stringContaining('no usable tool message') })
  })
})
