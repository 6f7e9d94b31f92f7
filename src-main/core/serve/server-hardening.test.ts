import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createEngine } from '../engine'
import { FileKeyStore } from '../settings/key-store'
import { testAgentHost } from '../supervisor/testing'
import { useCleanups } from '../testing/cleanups'
import { startServer, type RunningServer, type ServeOptions } from './server'

/**
 * `serve` against what a hostile local process may send: bad request targets, foreign Host and
 * Origin headers, broken WebSocket frames, clients that stop reading or answering pings, and a
 * file that cannot be read. Each answer is an error for that client; the server keeps serving.
 */

const { cleanups, tempDir } = useCleanups('arbor-serve-hardening-')

interface Served {
  server: RunningServer
  rendererDir: string
  logs: string[]
}

async function serve(options: Partial<ServeOptions> = {}): Promise<Served> {
  const dir = tempDir()
  const rendererDir = path.join(dir, 'renderer')
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Arbor test page</title>\n')
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("arbor")\n')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: {},
  })
  cleanups.push(() => engine.close())
  const logs: string[] = []
  const server = await startServer({ engine, rendererDir, log: (line) => logs.push(line), ...options })
  cleanups.push(() => server.close())
  return { server, rendererDir, logs }
}

/**
 * Bytes written on a raw TCP connection; resolves with everything the server sent until it closed
 * (or 2 s), or at once when `until` matches what came so far.
 */
function raw(server: RunningServer, ...writes: Array<string | Buffer | RegExp>): Promise<string> {
  const until = writes.find((piece): piece is RegExp => piece instanceof RegExp)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect(server.port, '127.0.0.1', () => {
      for (const piece of writes) if (!(piece instanceof RegExp)) socket.write(piece)
    })
    const done = (): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(Buffer.concat(chunks).toString('latin1'))
    }
    const timer = setTimeout(done, 2000)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      if (until?.test(Buffer.concat(chunks).toString('latin1'))) done()
    })
    socket.on('error', done)
    socket.on('close', done)
  })
}

const get = (server: RunningServer, target: string, headers: Record<string, string> = {}): Promise<string> => {
  const lines = Object.entries({ Host: `127.0.0.1:${server.port}`, Connection: 'close', ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  )
  return raw(server, `GET ${target} HTTP/1.1\r\n${lines.join('')}\r\n`, /^HTTP\/1\.1 101 [^]*\r\n\r\n/)
}

const status = (reply: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)

async function stillServes(server: RunningServer): Promise<void> {
  const page = await get(server, `/?token=${server.token}`)
  expect(status(page)).toBe(200)
  expect(page).toContain('Arbor test page')
}

function connect(server: RunningServer, options: { autoPong?: boolean } = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, options)
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
    cleanups.push(() => socket.terminate())
  })
}

const closed = (socket: WebSocket): Promise<number> => new Promise((resolve) => socket.once('close', (code) => resolve(code)))

describe('HTTP requests', () => {
  it('answers bad request targets with 400, token or not, and keeps serving', async () => {
    const { server } = await serve()
    for (const target of [
      'http://x/',
      `http://127.0.0.1:${server.port}/?token=${server.token}`,
      'http://[/',
      '*',
      '/%E0%A4%A',
      `/%E0%A4%A?token=${server.token}`,
      '/%',
    ]) {
      expect(status(await get(server, target)), target).toBe(400)
    }
    // Origin form even when it looks like an authority: a path, not a host.
    expect(status(await get(server, '//[/'))).toBe(404)
    expect(status(await raw(server, 'GET /\u0001 HTTP/1.1\r\n\r\n'))).toBe(400)
    expect(status(await raw(server, 'NOT-HTTP\r\n\r\n'))).toBe(400)
    await stillServes(server)
  })

  it('answers only to its own names on its own port (DNS rebinding): others get 421', async () => {
    const { server } = await serve()
    const page = `/?token=${server.token}`
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      '127.0.0.1',
      `127.0.0.2:${server.port}`,
    ]) {
      expect(status(await get(server, page, { Host: host })), host).toBe(421)
    }
    expect(status(await raw(server, `GET ${page} HTTP/1.0\r\n\r\n`)), 'no Host').toBe(421)
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`, `[::1]:${server.port}`]) {
      expect(status(await get(server, page, { Host: host })), host).toBe(200)
    }
  })

  it('needs the token for the page but not its scripts, and sets no cookie', async () => {
    const { server } = await serve()
    expect(status(await get(server, '/'))).toBe(401)
    expect(status(await get(server, '/index.html'))).toBe(401)
    expect(status(await get(server, '/INDEX.HTML'))).toBe(401)
    expect(status(await get(server, '/index%2ehtml'))).toBe(401)
    const page = await get(server, `/?token=${server.token}`)
    expect(status(page)).toBe(200)
    expect(page.toLowerCase()).not.toContain('set-cookie')
    const script = await get(server, '/assets/app.js')
    expect(status(script)).toBe(200)
    expect(script).toContain('console.log("arbor")')
    expect(status(await get(server, '/../../../etc/passwd'))).toBe(404)
    expect(status(await get(server, '/%2e%2e/%2e%2e/etc/passwd'))).toBe(404)
  })

  it.runIf(process.platform === 'linux')('answers a file it cannot read with 500 and a log line, then keeps serving', async () => {
    const { server, rendererDir, logs } = await serve()
    // stat() says a regular file; reading it fails with EIO.
    symlinkSync('/proc/self/mem', path.join(rendererDir, 'assets', 'broken.js'))
    expect(status(await get(server, '/assets/broken.js'))).toBe(500)
    expect(logs.join('\n')).toMatch(/cannot read "assets\/broken\.js"/)
    await stillServes(server)
  })

  it('turns an unexpected failure inside a route into a 500 and a log line', async () => {
    const { server, logs } = await serve()
    const tmp = process.env.TMPDIR
    process.env.TMPDIR = path.join(tempDir(), 'missing')
    try {
      const reply = await raw(
        server,
        `POST /import?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      )
      expect(status(reply)).toBe(500)
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = tmp
    }
    expect(logs.join('\n')).toMatch(/POST .*failed: ENOENT/)
    await stillServes(server)
  })
})

describe('WebSocket upgrades', () => {
  const upgrade = (server: RunningServer, target: string, headers: Record<string, string> = {}) =>
    get(server, target, {
      Upgrade: 'websocket',
      Connection: 'Upgrade',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      ...headers,
    })

  it('refuses a bad target (400), a foreign Host (421), a foreign Origin (403) and a missing token (401)', async () => {
    const { server } = await serve()
    const ws = `/ws?token=${server.token}`
    expect(status(await upgrade(server, 'http://[/'))).toBe(400)
    expect(status(await upgrade(server, '/%E0%A4%A'))).toBe(400)
    expect(status(await upgrade(server, ws, { Host: `evil.example:${server.port}` }))).toBe(421)
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${server.port + 1}`, `https://127.0.0.1:${server.port}`]) {
      expect(status(await upgrade(server, ws, { Origin: origin })), origin).toBe(403)
    }
    expect(status(await upgrade(server, '/ws'))).toBe(401)
    expect(status(await upgrade(server, ws, { Origin: `http://127.0.0.1:${server.port}` }))).toBe(101)
    expect(status(await upgrade(server, ws, { Host: `localhost:${server.port}`, Origin: `http://localhost:${server.port}` }))).toBe(101)
    await stillServes(server)
  })
})

describe('WebSocket clients', () => {
  it('closes a client that sends a frame over the limit (1009), logs it, and keeps serving', async () => {
    const { server, logs } = await serve({ maxFrameBytes: 1024 })
    const socket = await connect(server)
    const code = closed(socket)
    socket.send('x'.repeat(2048))
    expect(await code).toBe(1009)
    expect(logs.join('\n')).toMatch(/closed a WebSocket client: .*Max payload size exceeded/)
    await stillServes(server)
    const again = await connect(server)
    const reply = new Promise<string>((resolve) => again.once('message', (data) => resolve(String(data))))
    again.send(JSON.stringify({ id: 1, method: 'listJobs', input: {} }))
    expect(JSON.parse(await reply)).toMatchObject({ id: 1, result: { ok: true } })
  })

  it('answers frames that are not requests with an error, never with an exception', async () => {
    const { server } = await serve()
    const socket = await connect(server)
    const replies: unknown[] = []
    socket.on('message', (data) => replies.push(JSON.parse(String(data))))
    const frames = ['not json', '', '[]', 'null', '{"id":1}', '{"id":"1","method":"listJobs"}', '{"id":2,"method":"__proto__","input":{}}']
    frames.push(
      '{"id":3,"method":"constructor","input":{}}',
      '{"id":4,"method":"toString","input":{}}',
      '{"id":5,"method":"listJobs","input":{},"extra":1}',
    )
    for (const frame of frames) socket.send(frame)
    socket.send(Buffer.from('{"id":6,"method":"listJobs","input":{}}'), { binary: true })
    await expect.poll(() => replies.length).toBe(frames.length + 1)
    // Replies come as each request is answered, not in order: match them by id.
    const results = replies as Array<{ id: number | null; result: { ok: boolean; error?: { code: string } } }>
    const codeOf = (id: number | null) => results.filter((reply) => reply.id === id).map((reply) => reply.result.error?.code ?? 'ok')
    // A frame that is not a request (no input, an extra key, a string id …) is answered without an id.
    expect(codeOf(null)).toEqual(Array(7).fill('invalid_request'))
    expect([2, 3, 4, 6].map((id) => codeOf(id))).toEqual([['unknown_method'], ['unknown_method'], ['unknown_method'], ['ok']])
  })

  it('closes a client that sends a broken frame (1002) or bad UTF-8 (1007), and keeps serving', async () => {
    const { server, logs } = await serve()
    const handshake = `GET /ws?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`
    const mask = Buffer.from([1, 2, 3, 4])
    const masked = (payload: Buffer): Buffer => Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!))
    const frames = {
      unmasked: Buffer.from([0x81, 0x02, 0x68, 0x69]),
      reservedOpcode: Buffer.concat([Buffer.from([0x83, 0x80]), mask]),
      reservedBits: Buffer.concat([Buffer.from([0xf1, 0x82]), mask, masked(Buffer.from('hi'))]),
      badUtf8: Buffer.concat([Buffer.from([0x81, 0x82]), mask, masked(Buffer.from([0xc3, 0x28]))]),
      hugeLength: Buffer.concat([Buffer.from([0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), mask]),
      continuationFirst: Buffer.concat([Buffer.from([0x80, 0x82]), mask, masked(Buffer.from('hi'))]),
    }
    for (const [name, frame] of Object.entries(frames)) {
      const reply = await raw(server, handshake, frame)
      expect(reply, name).toMatch(/^HTTP\/1\.1 101/)
      // The close frame: opcode 8, then the code.
      const close = Buffer.from(reply.slice(reply.indexOf('\r\n\r\n') + 4), 'latin1')
      expect(close[0], name).toBe(0x88)
      expect([1002, 1007, 1009], name).toContain(close.readUInt16BE(2))
    }
    expect(logs.filter((line) => line.includes('closed a WebSocket client')).length).toBe(Object.keys(frames).length)
    await stillServes(server)
  })

  it('drops a client that stops answering pings', async () => {
    const { server, logs } = await serve({ heartbeatMs: 50 })
    const silent = await connect(server, { autoPong: false })
    const answering = await connect(server)
    const code = closed(silent)
    expect(await code).toBe(1006)
    expect(logs.join('\n')).toContain('stopped answering pings')
    expect(answering.readyState).toBe(WebSocket.OPEN)
  })

  it('drops a client that leaves too much output unread (1013), and keeps serving the others', async () => {
    const { server, logs } = await serve({ maxBufferedBytes: 64 * 1024 })
    const reader = await connect(server)
    const slow = await connect(server)
    slow.pause()
    const code = closed(slow)
    // Each reply carries the whole price table; the paused client reads none of them.
    const request = JSON.stringify({ id: 1, method: 'getSettings', input: {} })
    for (let round = 0; round < 100 && !logs.some((line) => line.includes('unread')); round++) {
      for (let index = 0; index < 200; index++) slow.send(request)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(logs.join('\n')).toMatch(/dropped a WebSocket client that left \d+ bytes unread/)
    slow.resume()
    expect([1013, 1006]).toContain(await code)
    const reply = new Promise<string>((resolve) => reader.once('message', (data) => resolve(String(data))))
    reader.send(JSON.stringify({ id: 7, method: 'listJobs', input: {} }))
    expect(JSON.parse(await reply)).toMatchObject({ id: 7, result: { ok: true } })
  })
})
