import { describe, expect, it } from 'vitest'
import { compactHistory } from '../agent/compaction'
import type { ProviderMessage, ToolDefinition } from '../providers/types'
import { toSupervisorSchema } from './messages'
import { HistoryReceiver, HistorySender } from './model-history'

const tools: ToolDefinition[] = [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } }]
const user = (content: string): ProviderMessage => ({ role: 'user', content })
const assistant = (content: string): ProviderMessage => ({ role: 'assistant', content })

/** Sends each request through both sides, as JSON over the pipe; returns what the supervisor rebuilt and what was sent. */
function roundTrip(requests: { messages: ProviderMessage[]; tools: ToolDefinition[] }[]) {
  const sender = new HistorySender()
  const receiver = new HistoryReceiver()
  return requests.map((request, index) => {
    const sent = toSupervisorSchema.parse(
      JSON.parse(JSON.stringify({ type: 'model_call', call_id: `model_${index}`, ...sender.next(request.messages, request.tools) })),
    )
    if (sent.type !== 'model_call') throw new Error('not a model call')
    return { sent, rebuilt: receiver.apply(sent) }
  })
}

describe('model call history deltas', () => {
  it('sends only the messages added since the last call, and the tools once; the supervisor rebuilds every request whole', () => {
    const history: ProviderMessage[] = [{ role: 'system', content: 'You are an agent.' }, user('Do the task.')]
    const requests = [{ messages: [...history], tools }]
    history.push(assistant('Reading.'), { role: 'tool', content: 'file text', tool_call_id: 'call_1' })
    requests.push({ messages: [...history], tools })
    history.push(assistant('Done.'))
    requests.push({ messages: [...history], tools })

    const calls = roundTrip(requests)
    expect(calls.map(({ sent }) => [sent.history_kept, sent.messages.length, sent.tools !== undefined])).toEqual([
      [0, 2, true],
      [2, 2, false],
      [4, 1, false],
    ])
    expect(calls.map(({ rebuilt }) => rebuilt)).toEqual(requests)
  })

  it('after a compaction, sends the history from the first message that changed', () => {
    const history: ProviderMessage[] = [{ role: 'system', content: 'system' }, user('task')]
    for (let index = 0; index < 6; index++) history.push(assistant(`step ${index} `.repeat(50)))
    const before = [...history]
    const compacted = compactHistory(history, 100)!.messages
    const calls = roundTrip([
      { messages: before, tools },
      { messages: compacted, tools },
      { messages: [...compacted, user('next')], tools },
    ])
    expect(calls[1]!.sent.history_kept).toBe(2)
    expect(calls[2]!.sent).toMatchObject({ history_kept: compacted.length, messages: [user('next')] })
    expect(calls.map(({ rebuilt }) => 'messages' in rebuilt && rebuilt.messages)).toEqual([before, compacted, [...compacted, user('next')]])
  })

  it('sends the tools again when they change', () => {
    const messages = [user('task')]
    const calls = roundTrip([
      { messages, tools },
      { messages, tools: [...tools, { name: 'search', description: 'Searches', parameters: {} }] },
    ])
    expect(calls[1]!.sent.tools).toHaveLength(2)
    expect(calls[1]!.rebuilt).toMatchObject({ tools: [{ name: 'read_file' }, { name: 'search' }] })
  })

  it('refuses a call that keeps more messages than were sent, and starts over from nothing', () => {
    const receiver = new HistoryReceiver()
    receiver.apply({ history_kept: 0, messages: [user('task')], tools })
    expect(receiver.apply({ history_kept: 5, messages: [] })).toEqual({ error: 'the model call keeps 5 messages of a history of 1' })
    expect(receiver.apply({ history_kept: 1, messages: [] })).toEqual({ error: 'the model call keeps 1 messages of a history of 0' })
  })
})
