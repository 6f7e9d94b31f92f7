import { afterEach, describe, expect, it } from 'vitest'
import { createAnthropicProvider } from '../anthropic'
import { collectReply } from '../collect'
import { ProviderError } from '../errors'
import { createOpenAIProvider } from '../openai'
import type { Provider, ProviderMessage, ProviderRequest } from '../types'
import { anthropicConversations, anthropicView, startFakeAnthropic } from './fake-anthropic'
import { once, type FakeServer } from './fake-http'
import { openaiConversations, openaiErrors, openaiView, startFakeOpenAI, type FakeOpenAIResponse } from './fake-openai'

const sleep = async () => {}
const servers: Array<FakeServer<unknown>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})
const tools: ProviderRequest['tools'] = [{ name: 'task', description: 'Delegate', parameters: { type: 'object' } }]

/** One agent's loop, reduced: call, run "tools" by echoing, call again until no tool calls. */
async function runAgent(provider: Provider, system: string, firstUser: string): Promise<string> {
  const messages: ProviderMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: firstUser },
  ]
  for (;;) {
    const reply = await collectReply(provider, { messages, tools })
    messages.push({ role: 'assistant', content: reply.text, tool_calls: reply.tool_calls })
    if (reply.tool_calls.length === 0) return reply.text
    for (const call of reply.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `result of ${call.arguments}` })
  }
}

const task = (marker: string) => ({
  name: 'task',
  arguments: { description: marker, prompt: `${marker}: survey`, subagent_type: 'explore' },
})

describe('the fake servers route concurrent conversations by who asks and how far they are', () => {
  it('openai: a root delegating two parallel tasks, children answered by their prompt, a transient 429 inside one', async () => {
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-A', turns: [{ text: 'A found 3 files.' }] },
        { match: 'CHILD-B', turns: [once<FakeOpenAIResponse>(openaiErrors.rateLimit(0), { text: 'B found 5 files.' })] },
        {
          match: 'ROOT',
          turns: [
            { text: 'Delegating.', tool_calls: [task('CHILD-A'), task('CHILD-B')] },
            (view) => ({ text: `Done: ${view.tool_results.map((result) => result.tool_call_id).join(', ')}` }),
          ],
        },
      ]),
    })
    servers.push(server as FakeServer<unknown>)
    const provider = createOpenAIProvider({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: `${server.url}/v1`, sleep })
    const [root, a, b] = await Promise.all([
      runAgent(provider, 'root profile', 'ROOT task'),
      runAgent(provider, 'explore profile', 'CHILD-A\n\nCHILD-A: survey'),
      runAgent(provider, 'explore profile', 'CHILD-B\n\nCHILD-B: survey'),
    ])
    expect(root).toBe('Done: call_t0_0, call_t0_1')
    expect([a, b]).toEqual(['A found 3 files.', 'B found 5 files.'])
    const views = server.requests.map(openaiView)
    expect(views.filter((view) => view.first_user.startsWith('ROOT')).map((view) => view.turn)).toEqual([0, 1])
    expect(views.filter((view) => view.first_user.startsWith('CHILD-B'))).toHaveLength(2) // the 429, then the retry
    expect(views[0]).toMatchObject({ model: 'gpt-4o-mini', tools: ['task'] })
  })

  it('anthropic: the same script shape, with tool results read from the last user message', async () => {
    const server = await startFakeAnthropic({
      route: anthropicConversations([
        { match: /CHILD-(A|B)/, turns: [(view) => ({ text: `${view.first_user.slice(0, 7)} done` })] },
        {
          match: (view) => view.system === 'root profile',
          turns: [{ tool_calls: [task('CHILD-A'), task('CHILD-B')] }, (view) => ({ text: `${view.tool_results.length} results` })],
        },
      ]),
    })
    servers.push(server as FakeServer<unknown>)
    const provider = createAnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'sk-ant-test', baseURL: server.url, sleep })
    expect(await runAgent(provider, 'root profile', 'Survey')).toBe('2 results')
    expect(await runAgent(provider, 'explore profile', 'CHILD-A: survey')).toBe('CHILD-A done')
    expect(server.requests.map(anthropicView).map((view) => [view.system, view.turn])).toEqual([
      ['root profile', 0],
      ['root profile', 1],
      ['explore profile', 0],
    ])
  })

  it('answers an unscripted request with a 400 that says so, which the provider does not retry', async () => {
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'KNOWN-AGENT', turns: [{ text: 'hi' }] }]) })
    servers.push(server as FakeServer<unknown>)
    const provider = createOpenAIProvider({ model: 'gpt-4o', apiKey: 'sk-test', baseURL: `${server.url}/v1`, sleep })
    const error = await runAgent(provider, 's', 'some other agent').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'other', message: expect.stringContaining('no scripted response for request #1') })
    expect(server.requests).toHaveLength(1)
  })
})
