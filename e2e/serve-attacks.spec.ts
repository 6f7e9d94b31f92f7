import { expect, test } from '@playwright/test'
import net from 'node:net'
import WebSocket from 'ws'
import { startArborServer, type ArborServer } from './support/arbor-server'

// What a hostile local process may send to the real built `arbor serve`: malformed HTTP and
// raw WebSocket frames on bare sockets, foreign Host and Origin headers, oversized frames, a
// client that never reads. After each attack the process still runs and still answers.
let server: ArborServer

test.beforeEach(async () => {
  server = await startArborServer()
})
test.afterEach(async () => {
  await server.stop()
})

const host = (): string => new URL(server.origin).host
const port = (): number => Number(new URL(server.origin).port)

/** Writes bytes on a bare TCP connection; resolves with what came back when the server closed it, or after `waitMs`. */
function rawExchange(pieces: Array<string | Buffer>, waitMs = 3000): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect(port(), '127.0.0.1', () => {
      for (const piece of pieces) socket.write(piece)
    })
    const done = (): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(Buffer.concat(chunks))
    }
    const timer = setTimeout(done, waitMs)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('close', done)
    socket.on('error', done)
  })
}

const statusOf = (reply: Buffer): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(reply.toString('latin1'))?.[1] ?? 0)

const httpGet = (target: string, headers: Record<string, string> = {}): Promise<Buffer> => {
  const lines = Object.entries({ Host: host(), Connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`)
  return rawExchange([`GET ${target} HTTP/1.1\r\n${lines.join('')}\r\n`])
}

const handshake = (target = `/ws?token=${server.token}`, headers: Record<string, string> = {}): string => {
  const all = {
    Host: host(),
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    ...headers,
  }
  return `GET ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`
}

function connect(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/ws?token=${server.token}`)
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** The process has not exited, the page loads with the token, and a WebSocket request is answered. */
async function expectAlive(): Promise<void> {
  expect(server.alive(), `arbor serve exited:\n${server.output()}`).toBe(true)
  const page = await fetch(server.url)
  expect(page.status).toBe(200)
  const socket = await connect()
  const reply = await new Promise<{ id: number; result: { ok: boolean } }>((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(String(data))))
    socket.send(JSON.stringify({ id: 1, method: 'listJobs', input: {} }))
  })
  socket.close()
  expect(reply).toMatchObject({ id: 1, result: { ok: true } })
  expect(server.alive()).toBe(true)
}

test('absolute-form and other malformed request targets get 400, with or without the token', async () => {
  for (const target of [
    'http://x/',
    'http://[/',
    `${server.origin}/?token=${server.token}`,
    'https://127.0.0.1/',
    '*',
    'x',
    '/%E0%A4%A',
    `/%E0%A4%A?token=${server.token}`,
    '/%',
    '/%zz',
  ]) {
    expect(statusOf(await httpGet(target)), target).toBe(400)
  }
  // The same targets on a WebSocket upgrade.
  for (const target of ['http://[/', '/ws%E0%A4%A', `http://x/ws?token=${server.token}`]) {
    expect(statusOf(await rawExchange([handshake(target)])), target).toBe(400)
  }
  await expectAlive()
})

test('bytes that are not HTTP, oversized headers and broken bodies get an error, never an exit', async () => {
  const attacks: Array<Array<string | Buffer>> = [
    ['\u0000\u0001\u0002 garbage\r\n\r\n'],
    [Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01])], // a TLS ClientHello
    [`GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`],
    [`GET /\u0000 HTTP/1.1\r\nHost: ${host()}\r\n\r\n`],
    [`POST /import?token=${server.token} HTTP/1.1\r\nHost: ${host()}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nnot a chunk\r\n`],
    [`POST /import?token=${server.token} HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n0123456789`],
    [`POST /import?token=${server.token} HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 100000\r\n\r\n{"type":`], // then hangs up
    [`GET /?token=${server.token} HTTP/1.1\r\nHost: ${host()}\r\n`], // never ends its headers
  ]
  for (const attack of attacks) await rawExchange(attack, 1000)
  const garbageUpload = await rawExchange([
    `POST /import?token=${server.token} HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 6\r\nConnection: close\r\n\r\n`,
    Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x0a, 0x5d]),
  ])
  expect(statusOf(garbageUpload)).toBe(400)
  await expectAlive()
})

test('paths that climb out of the UI folder are not found', async () => {
  for (const target of [
    '/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/assets/..%2f..%2f..%2fpackage.json',
    '/export/..%2f..%2fetc.jsonl',
    '//etc/passwd',
  ]) {
    const status = statusOf(await httpGet(`${target}${target.includes('?') ? '&' : '?'}token=${server.token}`))
    expect([400, 404], target).toContain(status)
  }
  await expectAlive()
})

test('a foreign Host (DNS rebinding) gets 421 and a foreign Origin cannot open the WebSocket', async () => {
  for (const name of ['evil.example', `evil.example:${port()}`, `127.0.0.1:${port() + 1}`]) {
    expect(statusOf(await httpGet(`/?token=${server.token}`, { Host: name })), name).toBe(421)
    expect(statusOf(await rawExchange([handshake(undefined, { Host: name })])), name).toBe(421)
  }
  for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${port() + 1}`]) {
    expect(statusOf(await rawExchange([handshake(undefined, { Origin: origin })])), origin).toBe(403)
  }
  const ownPage = await rawExchange([handshake(undefined, { Origin: server.origin })], 500)
  expect(statusOf(ownPage)).toBe(101)
  await expectAlive()
})

test('the token never travels as a cookie', async () => {
  const page = await fetch(server.url)
  expect(page.status).toBe(200)
  expect(page.headers.get('set-cookie')).toBeNull()
  // A cookie with the right token opens nothing: only ?token= does.
  const withCookie = await httpGet('/', { Cookie: `arbor_token=${server.token}` })
  expect(statusOf(withCookie)).toBe(401)
  await expectAlive()
})

test('a WebSocket frame over 1 MiB closes that client with 1009, the server keeps serving', async () => {
  const socket = await connect()
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
  socket.on('error', () => undefined)
  socket.send('x'.repeat(2 * 1024 * 1024))
  expect(await closed).toBe(1009)
  await expect.poll(() => server.output()).toMatch(/closed a WebSocket client: .*Max payload size exceeded/)
  await expectAlive()
})

test('broken raw WebSocket frames close that client with a protocol error code', async () => {
  const mask = Buffer.from([0x11, 0x22, 0x33, 0x44])
  const masked = (payload: Buffer): Buffer => Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!))
  const frames: Record<string, Buffer> = {
    'unmasked text': Buffer.from([0x81, 0x02, 0x68, 0x69]),
    'reserved opcode': Buffer.concat([Buffer.from([0x83, 0x80]), mask]),
    'reserved bits': Buffer.concat([Buffer.from([0xf1, 0x82]), mask, masked(Buffer.from('hi'))]),
    'invalid UTF-8': Buffer.concat([Buffer.from([0x81, 0x82]), mask, masked(Buffer.from([0xc3, 0x28]))]),
    'a 2^63-byte length': Buffer.concat([Buffer.from([0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), mask]),
    'a 2 MiB length': Buffer.concat([Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0, 0x20, 0, 0]), mask]),
    'a continuation first': Buffer.concat([Buffer.from([0x80, 0x82]), mask, masked(Buffer.from('hi'))]),
    'a fragmented ping': Buffer.concat([Buffer.from([0x09, 0x80]), mask]),
    'a ping over 125 bytes': Buffer.concat([Buffer.from([0x89, 0xfe, 0x00, 0x80]), mask, masked(Buffer.alloc(128))]),
    'a close with a bad code': Buffer.concat([Buffer.from([0x88, 0x82]), mask, masked(Buffer.from([0x03, 0xe7]))]),
  }
  for (const [name, frame] of Object.entries(frames)) {
    const reply = await rawExchange([handshake(), frame])
    const text = reply.toString('latin1')
    expect(text, name).toMatch(/^HTTP\/1\.1 101/)
    const close = reply.subarray(text.indexOf('\r\n\r\n') + 4)
    expect(close[0], `${name}: a close frame`).toBe(0x88)
    expect([1002, 1007, 1009], name).toContain(close.readUInt16BE(2))
  }
  await expectAlive()
})

test('invalid JSON, unknown methods and prototype names get error replies', async () => {
  const socket = await connect()
  const replies: Array<{ id: number | null; result: { ok: boolean; error?: { code: string } } }> = []
  socket.on('message', (data) => replies.push(JSON.parse(String(data))))
  const frames = [
    'not json',
    '{"id":1',
    '[1,2,3]',
    '{"id":2,"method":"dropTables","input":{}}',
    '{"id":3,"method":"__proto__","input":{}}',
    '{"id":4,"method":"constructor","input":{}}',
  ]
  frames.push(
    '{"id":5,"method":"killAgent","input":{"agent_id":{"$gt":""}}}',
    JSON.stringify({ id: 6, method: 'getEvents', input: { agent_id: 'x', limit: 1e308 } }),
  )
  for (const frame of frames) socket.send(frame)
  await expect.poll(() => replies.length).toBe(frames.length)
  const codes = Object.fromEntries(replies.map((reply) => [String(reply.id), reply.result.error?.code]))
  expect(codes).toEqual({
    null: 'invalid_request',
    2: 'unknown_method',
    3: 'unknown_method',
    4: 'unknown_method',
    5: 'invalid_request',
    6: 'invalid_request',
  })
  expect(replies.filter((reply) => reply.id === null)).toHaveLength(3)
  socket.close()
  await expectAlive()
})

test('a client that never reads its replies is dropped once 8 MiB wait for it; the others are served', async () => {
  test.setTimeout(120_000)
  const slow = await connect()
  slow.pause()
  slow.on('error', () => undefined)
  const request = JSON.stringify({ id: 1, method: 'getSettings', input: {} })
  for (let round = 0; round < 200 && !/left \d+ bytes unread/.test(server.output()); round++) {
    for (let index = 0; index < 500; index++) slow.send(request)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect(server.output()).toMatch(/dropped a WebSocket client that left \d+ bytes unread/)
  await expectAlive()
  slow.terminate()
})

test('many attacks in a row on one server leave it running', async () => {
  const oversized = await connect()
  oversized.on('error', () => undefined)
  oversized.send('y'.repeat(1.5 * 1024 * 1024))
  await httpGet('http://[/')
  await rawExchange([handshake('/ws%E0%A4%A')])
  await rawExchange([handshake(), Buffer.from([0x81, 0x02, 0x68, 0x69])])
  await httpGet('/?token=x', { Host: 'rebound.example' })
  await rawExchange(['\r\n\r\n\r\n'])
  await expectAlive()
})
