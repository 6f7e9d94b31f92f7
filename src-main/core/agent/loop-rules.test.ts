/**
 * The loop's rules of product.md §3, each against a fake provider (given usage, given errors)
 * and stub tools, so nothing here depends on the file system or on the real tools.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ProviderError } from '../providers/errors'
import type { Provider, ProviderEvent, ProviderMessage, ProviderRequest } from '../providers/types'
import type { AgentInit } from '../protocol/messages'
import { compactionNote } from './compaction'
import { maxContextLengthRetries } from './loop'
import { builtinProfiles, knownTools, validateProfile, type Profile } from '../job/profiles'
import { makeInit, runScripted } from './testing'
import { attemptCompletionTool } from './tools/attempt-completion'
import { defineTool, type Tool } from './tools/types'

/** Every tool of product.md §2 as a stub answering `size` characters. */
const stubTools: Tool[] = knownTools.map((name) =>
  name === 'attempt_completion'
    ? attemptCompletionTool
    : defineTool({
        name,
        description: `${name} (stub)`,
        parameters: z.object({ size: z.number().optional() }),
        async execute(args) {
          return 'x'.repeat(args.size ?? 10)
        },
      }),
)

type Turn = { text?: string; calls?: { name: string; size?: number }[]; input_tokens?: number; output_tokens?: number } | ProviderError

/** Answers turn i on call i ("done" past the end) and keeps a copy of every request. */
function fakeProvider(turns: Turn[]): { provider: Provider; requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = []
  const provider: Provider = {
    kind: 'fake',
    model: 'fake-model',
    async *stream(request): AsyncGenerator<ProviderEvent> {
      requests.push({ ...request, messages: structuredClone(request.messages) })
      const step = requests.length
      const turn = turns[step - 1] ?? { text: 'done' }
      if (turn instanceof ProviderError) throw turn
      if (turn.text) yield { type: 'text_delta', text: turn.text }
      const calls = turn.calls ?? []
      for (const [index, call] of calls.entries()) {
        yield { type: 'tool_call', call: { id: `call_${step}_${index}`, name: call.name, arguments: JSON.stringify({ size: call.size }) } }
      }
      const usage = {
        input_tokens: turn.input_tokens ?? 10,
        output_tokens: turn.output_tokens ?? 5,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      }
      yield { type: 'finish', usage, cost_usd: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }
    },
  }
  return { provider, requests }
}

const toolTurn = (size: number, input_tokens?: number): Turn => ({ calls: [{ name: 'list_files', size }], input_tokens })
const contextTooLong = () => new ProviderError('context_length', 'context too long')

function init(profile: Partial<Profile> & { name: string }, firstMessage = 'Do the task.'): AgentInit {
  const base = makeInit('/nowhere', [], profile)
  return { ...base, profile: validateProfile(base.profile), first_message: firstMessage }
}

async function run(agentInit: AgentInit, turns: Turn[], signal?: AbortSignal) {
  const fake = fakeProvider(turns)
  const { outcome, supervisor } = await runScripted(agentInit, { provider: fake.provider, tools: stubTools, signal })
  return { outcome, supervisor, requests: fake.requests }
}

/** Every tool result right after its assistant message (or a sibling result), as the APIs require. */
function expectPairsIntact(messages: ProviderMessage[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return
    const owner = messages
      .slice(0, index)
      .reverse()
      .find((earlier) => earlier.role !== 'tool')
    expect(owner?.role === 'assistant' && owner.tool_calls?.some((call) => call.id === message.tool_call_id)).toBe(true)
  })
}

describe('the first request', () => {
  it('is the profile system prompt and the first user message as given, with the profile tools only', async () => {
    const first = 'Find the parser.\n\nStructured context:\n{"dir":"src"}\n\nWorkspace:\n- project root: /p'
    for (const name of ['worker', 'explore', 'general']) {
      const { requests } = await run(init({ name }, first), [{ text: 'ok' }])
      const profile = builtinProfiles[name]!
      expect(requests[0]!.messages).toEqual([
        { role: 'system', content: profile.system_prompt },
        { role: 'user', content: first },
      ])
      expect(requests[0]!.tools.map((tool) => tool.name)).toEqual(profile.tools)
    }
  })
})

describe('compaction before a model call', () => {
  it('truncates when the last request used more than 75% of context_token_budget', async () => {
    const { outcome, supervisor, requests } = await run(init({ name: 'worker', context_token_budget: 1000 }), [
      toolTurn(800, 300),
      toolTurn(800, 500),
      toolTurn(800, 800),
      { text: 'done' },
    ])
    expect(outcome).toMatchObject({ status: 'completed', result: 'done' })
    expect(requests).toHaveLength(4)
    const compactions = supervisor.data('context.compact')
    expect(compactions).toHaveLength(1)
    const [compaction] = compactions
    expect(compaction).toMatchObject({ reason: 'context_budget', before_messages: 8, before_tokens: 800, budget: 1000 })

    // The history before compaction, as the trace's message events recorded it.
    const before = supervisor.data('message').slice(0, 8)
    expect(before.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool'])
    const after = requests[3]!.messages
    const removed = compaction!.removed_messages as number
    expect(removed).toBeGreaterThanOrEqual(2)
    expect(compaction!.after_messages).toBe(after.length)
    expect(after.length).toBe(8 - removed + 1)
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(after[2]).toEqual({ role: 'user', content: compactionNote(removed) })
    expect(compaction!.note).toBe(compactionNote(removed))
    expect(after.slice(-2)).toEqual(before.slice(-2))
    expectPairsIntact(after)
  })

  it('does not compact at or below 75%, nor without a budget', async () => {
    const under = await run(init({ name: 'worker', context_token_budget: 1000 }), [toolTurn(800, 700), toolTurn(800, 750)])
    expect(under.supervisor.data('context.compact')).toEqual([])
    const unbounded = await run(init({ name: 'general' }), [toolTurn(800, 90_000), toolTurn(800, 200_000)])
    expect(unbounded.supervisor.data('context.compact')).toEqual([])
  })
})

describe('a "context length exceeded" error', () => {
  it('compacts and retries the same step', async () => {
    const tools = Array.from({ length: 8 }, () => toolTurn(800))
    const turns = [...tools, contextTooLong(), contextTooLong(), { text: 'done' }]
    const { outcome, supervisor, requests } = await run(init({ name: 'general' }), turns)
    expect(outcome).toMatchObject({ status: 'completed', terminal_reason: 'completed', result: 'done' })
    expect(requests).toHaveLength(11)
    const compactions = supervisor.data('context.compact')
    expect(compactions.map((compaction) => compaction.reason)).toEqual(['context_length', 'context_length'])
    expect(compactions[0]).toMatchObject({ before_messages: 18, budget: null })
    expect(compactions[1]!.before_messages).toBe(compactions[0]!.after_messages)
    // The failed requests and the retries are the same step: the history grew by nothing in between.
    expect(requests[9]!.messages).toHaveLength(compactions[0]!.after_messages as number)
    const last = requests[10]!.messages
    expect(last).toHaveLength(compactions[1]!.after_messages as number)
    expect(last.length).toBeLessThan(requests[8]!.messages.length)
    expect(last.slice(0, 2)).toEqual(requests[0]!.messages)
    expect(last[2]).toMatchObject({ role: 'user', content: expect.stringMatching(/earlier messages were removed/) })
    expectPairsIntact(last)
    expect(supervisor.data('error')).toEqual([])
  })

  it(`ends with provider_error after ${maxContextLengthRetries} compactions`, async () => {
    const tools = Array.from({ length: 12 }, () => toolTurn(800))
    const turns = [...tools, ...Array.from({ length: 6 }, contextTooLong)]
    const { outcome, supervisor, requests } = await run(init({ name: 'worker' }), turns)
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'provider_error' })
    expect(requests).toHaveLength(12 + 1 + maxContextLengthRetries)
    expect(supervisor.data('context.compact')).toHaveLength(maxContextLengthRetries)
    expect(supervisor.data('error')).toEqual([
      { message: 'fake: context too long (still too long after 3 compactions)', code: 'context_length' },
    ])
  })

  it('ends at once when there is nothing left to compact', async () => {
    const { outcome, supervisor, requests } = await run(init({ name: 'worker' }), [contextTooLong()])
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'provider_error' })
    expect(requests).toHaveLength(1)
    expect(supervisor.data('error')).toEqual([{ message: 'fake: context too long (nothing left to compact)', code: 'context_length' }])
  })
})

describe('other provider errors and stops', () => {
  it('ends with provider_error and an error event carrying the code', async () => {
    const { outcome, supervisor, requests } = await run(init({ name: 'worker' }), [
      toolTurn(10),
      new ProviderError('rate_limit', 'slow down'),
    ])
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'provider_error', summary: 'provider error: slow down' })
    expect(requests).toHaveLength(2)
    expect(supervisor.data('error')).toEqual([{ message: 'fake: slow down', code: 'rate_limit' }])
    expect(supervisor.data('context.compact')).toEqual([])
  })

  it('stops at max_steps', async () => {
    const { outcome, requests } = await run(init({ name: 'worker', max_steps: 2 }), [toolTurn(10), toolTurn(10), toolTurn(10)])
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'max_steps' })
    expect(requests).toHaveLength(2)
  })

  it('stops when total_token_budget is spent', async () => {
    const turn = { calls: [{ name: 'list_files' }], input_tokens: 200, output_tokens: 100 }
    const { outcome, requests } = await run(init({ name: 'worker', total_token_budget: 500 }), [turn, turn, turn, turn])
    expect(outcome).toMatchObject({
      status: 'failed',
      terminal_reason: 'token_budget',
      summary: 'stopped: used 600 tokens of a 500 token budget',
    })
    expect(requests).toHaveLength(2)
  })

  it('stops with the reason the abort gives (killed, timeout)', async () => {
    for (const reason of ['killed', 'timeout'] as const) {
      const stop = new AbortController()
      stop.abort(reason)
      const { outcome, requests } = await run(init({ name: 'worker' }), [toolTurn(10)], stop.signal)
      expect(outcome).toMatchObject({ status: 'failed', terminal_reason: reason })
      expect(requests).toHaveLength(0)
    }
  })
})
