import { describe, expect, it } from 'vitest'
import type { ApiNotification } from '@core/api/contract'
import { createWsClient, type WebSocketLike } from './ws-client'

/** An in-process stand-in for the server end of the socket. */
class FakeSocket implements WebSocketLike {
  readyState = 0
  sent: { id: number; method: string; input: unknown }[] = []
  onopen: ((event: unknown) => void) | null = null
  onmessage: ((event: { data: unknown }) => void) | null = null
  onclose: ((event: unknown) => void) | null = null
  onerror: ((event: unknown) => void) | null = null
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data))
  }
  close() {
    this.readyState = 3
    this.onclose?.({})
  }
  open() {
    this.readyState = 1
    this.onopen?.({})
  }
  reply(id: number, result: unknown) {
    this.onmessage?.({ data: JSON.stringify({ id, result }) })
  }
}

function setup() {
  const sockets: FakeSocket[] = []
  const timers: (() => void)[] = []
  const client = createWsClient({
    url: 'ws://127.0.0.1:1/ws?token=t',
    createSocket: (url) => {
      const socket = new FakeSocket(url)
      sockets.push(socket)
      return socket
    },
    setTimer: (callback) => timers.push(callback),
  })
  return { client, sockets, timers }
}

describe('createWsClient', () => {
  it('queues requests until open and matches responses by id, in any order', async () => {
    const { client, sockets } = setup()
    const jobs = client.api.listJobs({})
    const tree = client.api.getTree({ job_id: 'j1' })
    const socket = sockets[0]!
    expect(socket.sent).toHaveLength(0)
    socket.open()
    expect(socket.sent.map((message) => message.method)).toEqual(['listJobs', 'getTree'])
    expect(socket.sent[1]!.input).toEqual({ job_id: 'j1' })
    socket.reply(socket.sent[1]!.id, { ok: true, value: { tree: 'T' } })
    socket.reply(socket.sent[0]!.id, { ok: true, value: { jobs: [] } })
    await expect(tree).resolves.toEqual({ tree: 'T' })
    await expect(jobs).resolves.toEqual({ jobs: [] })
  })

  it('throws the server message on ok:false', async () => {
    const { client, sockets } = setup()
    sockets[0]!.open()
    const kill = client.api.killAgent({ agent_id: 'nope' })
    sockets[0]!.reply(sockets[0]!.sent[0]!.id, { ok: false, error: { code: 'not_found', message: 'no agent nope' } })
    await expect(kill).rejects.toThrow('no agent nope')
  })

  it('fans notifications out to subscribers until they unsubscribe', () => {
    const { client, sockets } = setup()
    const received: ApiNotification[] = []
    const unsubscribe = client.api.subscribe((notification) => received.push(notification))
    sockets[0]!.open()
    const notification = { kind: 'events', events: [] }
    sockets[0]!.onmessage?.({ data: JSON.stringify({ notification }) })
    unsubscribe()
    sockets[0]!.onmessage?.({ data: JSON.stringify({ notification }) })
    expect(received).toEqual([notification])
  })

  it('rejects requests in flight when the socket drops, reconnects and reports it', async () => {
    const { client, sockets, timers } = setup()
    const states: [boolean, boolean][] = []
    client.onConnectionChange((connected, reconnected) => states.push([connected, reconnected]))
    sockets[0]!.open()
    const pending = client.api.getState({})
    sockets[0]!.close()
    await expect(pending).rejects.toThrow('lost')
    expect(timers).toHaveLength(1)
    timers[0]!()
    sockets[1]!.open()
    expect(states).toEqual([
      [true, false],
      [false, false],
      [true, true],
    ])
    const after = client.api.getState({})
    sockets[1]!.reply(sockets[1]!.sent[0]!.id, { ok: true, value: { project: null, all_paused: false } })
    await expect(after).resolves.toEqual({ project: null, all_paused: false })
  })
})
