import { describe, expect, it } from 'vitest'
import { collectReply } from './collect'
import { ProviderError } from './errors'
import { createScriptedProvider, estimateUsage, scriptFinishedText } from './scripted'
import type { ProviderEvent, ProviderRequest, Sleep } from './types'

const request: ProviderRequest = {
  messages: [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: 'Go.' },
  ],
  tools: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }],
}

const recordingSleep = () => {
  const waits: number[] = []
  const sleep: Sleep = async (ms, signal) => {
    waits.push(ms)
    if (signal?.aborted) throw new Error('aborted')
  }
  return { waits, sleep }
}

async function events(iterable: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const all: ProviderEvent[] = []
  for await (const event of iterable) all.push(event)
  return all
}

describe('the scripted provider', () => {
  it('replays turn i on call i, after its delay, with deterministic call ids', async () => {
    const { waits, sleep } = recordingSleep()
    const provider = createScriptedProvider({
      model: 'scripted',
      sleep,
      script: [
        {
          delay_ms: 250,
          text: 'Reading.',
          tool_calls: [
            { name: 'read_file', arguments: { path: 'a' } },
            { name: 'list_files', arguments: {} },
          ],
        },
        { text: 'Done.' },
      ],
    })
    const first = await events(provider.stream(request))
    expect(waits).toEqual([250])
    expect(first.slice(0, 3)).toEqual([
      { type: 'text_delta', text: 'Reading.' },
      { type: 'tool_call', call: { id: 'call_1_0', name: 'read_file', arguments: '{"path":"a"}' } },
      { type: 'tool_call', call: { id: 'call_1_1', name: 'list_files', arguments: '{}' } },
    ])
    expect(first[3]).toMatchObject({ type: 'finish', finish_reason: 'tool_calls', cost_usd: 0 })

    const second = await collectReply(provider, request)
    expect(second).toMatchObject({ text: 'Done.', tool_calls: [], finish_reason: 'stop', cost_usd: 0 })
    const third = await collectReply(provider, request)
    expect(third.text).toBe(scriptFinishedText)
    expect(waits).toEqual([250])
  })

  it('estimates usage at four characters a token, rounding up', () => {
    const requestCharacters = JSON.stringify(request.tools).length + 'You are a test.'.length + 'Go.'.length
    const usage = estimateUsage(request, 'Hello', [{ id: 'x', name: 'read_file', arguments: '{"path":"a"}' }])
    expect(usage).toEqual({
      input_tokens: Math.ceil(requestCharacters / 4),
      output_tokens: Math.ceil(('Hello'.length + 'read_file'.length + '{"path":"a"}'.length) / 4),
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    })
  })

  it('counts the tool calls of earlier assistant messages as input', () => {
    const withCall: ProviderRequest = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: '', tool_calls: [{ id: 'c', name: 'read_file', arguments: 'x'.repeat(400) }] },
      ],
    }
    const requestCharacters = JSON.stringify(request.tools).length + 'You are a test.'.length + 'Go.'.length
    expect(estimateUsage(withCall, '', []).input_tokens).toBe(Math.ceil((requestCharacters + 'read_file'.length + 400) / 4))
  })

  it('stops with an aborted ProviderError when the signal aborts, before or during the delay', async () => {
    const stop = new AbortController()
    const sleep: Sleep = (_ms, signal) =>
      new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('AbortError')), { once: true }))
    const provider = createScriptedProvider({ model: 'scripted', sleep, script: [{ delay_ms: 10_000, text: 'late' }, { text: 'never' }] })
    const pending = collectReply(provider, { ...request, signal: stop.signal })
    stop.abort('killed')
    await expect(pending).rejects.toSatisfy((error) => ProviderError.isInstance(error) && error.code === 'aborted')
    await expect(collectReply(provider, { ...request, signal: stop.signal })).rejects.toThrow(ProviderError)
  })
})
