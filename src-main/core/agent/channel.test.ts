import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { packetMessages, toSupervisorSchema, type ToSupervisor } from '../protocol/messages'
import { connectToSupervisor } from './channel'

/** A stand-in for a forked process's side of Node's IPC: records each write. */
function forkedProcess() {
  const writes: unknown[] = []
  const host = Object.assign(new EventEmitter(), {
    connected: true,
    send(message: unknown, _handle: unknown, _options: unknown, callback: (error: Error | null) => void) {
      writes.push(JSON.parse(JSON.stringify(message)))
      setImmediate(() => callback(null))
      return true
    },
  })
  return { host: host as unknown as NodeJS.Process, writes, close: () => (host.connected = false) }
}

const event = (content: string): ToSupervisor => ({
  type: 'event',
  event_type: 'message',
  ts: '2025-01-01T00:00:00.000Z',
  data: { role: 'assistant', content },
})

describe('the channel to the supervisor', () => {
  it('writes a message the agent waits on at the end of the turn, with the events queued before it, in order', async () => {
    const { host, writes } = forkedProcess()
    const channel = connectToSupervisor(host)!
    const sent = [
      channel.send(event('a')),
      channel.send(event('b')),
      channel.send({ type: 'model_call', call_id: 'model_1', history_kept: 0, messages: [] }),
    ]
    expect(writes).toEqual([])
    await Promise.all(sent)
    await channel.send({ type: 'ready' })

    expect(writes).toHaveLength(2)
    expect(Array.isArray(writes[0])).toBe(true)
    expect(packetMessages(writes[0]).map((message) => toSupervisorSchema.parse(message).type)).toEqual(['event', 'event', 'model_call'])
    expect(
      packetMessages(writes[0])
        .slice(0, 2)
        .map((message) => (message as { data: { content: string } }).data.content),
    ).toEqual(['a', 'b'])
    expect(writes[1]).toEqual({ type: 'ready' })
  })

  it('lets events wait a moment for company, then sends them alone', async () => {
    const { host, writes } = forkedProcess()
    const channel = connectToSupervisor(host)!
    const first = channel.send(event('tool call'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual([])
    // A quick tool: its result and the next model call catch up with the waiting event.
    void channel.send(event('tool result'))
    await channel.send({ type: 'model_call', call_id: 'model_2', history_kept: 1, messages: [] })
    await first
    expect(writes).toHaveLength(1)
    expect(packetMessages(writes[0]).map((message) => (message as { type: string }).type)).toEqual(['event', 'event', 'model_call'])
    // A slow one: the event goes by itself.
    const started = Date.now()
    await channel.send(event('alone'))
    expect(writes[1]).toMatchObject({ type: 'event', data: { content: 'alone' } })
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('rejects the sends of a packet it cannot write once the supervisor is gone', async () => {
    const { host, close } = forkedProcess()
    const channel = connectToSupervisor(host)!
    close()
    await expect(channel.send(event('late'))).rejects.toThrow('the supervisor channel is closed')
  })
})
