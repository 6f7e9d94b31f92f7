import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { serveSocketApi } from './socket-api'

/**
 * The heartbeat of the `serve` WebSocket: a client that is alive but answers late (a browser
 * answers a ping only once its busy page has read what came before it), or whose pongs sit
 * unread while this process's own loop is blocked, keeps its connection; a silent one is dropped.
 */

const stops: Array<() => void> = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

async function serveHeartbeat(heartbeatMs: number, silentClientMs?: number) {
  const sockets = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => sockets.once('listening', resolve))
  const logs: string[] = []
  const stop = serveSocketApi(sockets, {
    dispatch: async () => ({ ok: true, value: null }),
    subscribe: () => () => undefined,
    log: (line) => logs.push(line),
    heartbeatMs,
    silentClientMs,
    maxBufferedBytes: 1 << 20,
  })
  stops.push(() => {
    stop()
    for (const client of sockets.clients) client.terminate()
    sockets.close()
  })
  const connect = async (options: { autoPong?: boolean } = {}) => {
    const client = new WebSocket(`ws://127.0.0.1:${(sockets.address() as AddressInfo).port}`, options)
    await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject))
    stops.push(() => client.terminate())
    const closed = new Promise<number>((resolve) => client.once('close', resolve))
    return { client, closed }
  }
  return { logs, connect }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Blocks this process's event loop, as a long synchronous task does. */
const block = (ms: number): void => {
  const end = Date.now() + ms
  while (Date.now() < end);
}

describe('the serve heartbeat', () => {
  it('keeps a client that answers each ping two pings late, and drops one that never answers', async () => {
    const { logs, connect } = await serveHeartbeat(40, 400)
    const late = await connect({ autoPong: false })
    // Answers every ping 100 ms after it came: by then two more pings were sent without a pong.
    late.client.on('ping', () => setTimeout(() => late.client.readyState === WebSocket.OPEN && late.client.pong(), 100))
    const silent = await connect({ autoPong: false })
    const dropped = await Promise.race([silent.closed, sleep(3000).then(() => 'not dropped')])
    expect(dropped).toBe(1006)
    expect(logs.join('\n')).toContain('stopped answering pings')
    await sleep(600)
    expect(late.client.readyState).toBe(WebSocket.OPEN)
  })

  it('keeps its clients when its own loop was blocked for longer than it lets a client stay silent', async () => {
    const { logs, connect } = await serveHeartbeat(30, 120)
    const answering = await connect()
    let pongs = 0
    answering.client.on('ping', () => pongs++)
    await sleep(100)
    // Blocked between two pings: when the loop runs again, the next tick comes before the pong
    // of the last ping is read, 400 ms after the client was last heard from.
    block(400)
    await sleep(200)
    expect(answering.client.readyState).toBe(WebSocket.OPEN)
    expect(logs.filter((line) => line.includes('dropped'))).toEqual([])
    // The check ran: pings went on after the block.
    const before = pongs
    await sleep(150)
    expect(pongs).toBeGreaterThan(before)
  })
})
