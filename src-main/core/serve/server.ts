import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import { z } from 'zod'
import { createDispatcher } from '../api/dispatcher'
import type { Engine } from '../engine'
import { tokenFromRequest, tokenMatches, tokenCookie } from './token'

export interface ServeOptions {
  engine: Engine
  /** The built renderer (out/renderer). */
  rendererDir: string
  port?: number
  token?: string
  log?: (line: string) => void
  /** Largest trace a browser may upload to POST /import. Default 1 GiB. */
  maxImportBytes?: number
}

export interface RunningServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

const requestSchema = z.object({ id: z.number().int(), method: z.string().max(100), input: z.unknown() }).strict()

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
}

/**
 * `arbor serve`: the UI for a browser, bound to 127.0.0.1. Every HTTP request and WebSocket
 * upgrade must carry the random access token (in `?token=` or the cookie set on the first
 * page load); WebSocket requests go through the same dispatcher as Electron's IPC.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  const dispatch = createDispatcher(options.engine.handlers, (error) => options.log?.(`internal error: ${String(error)}`))
  const rendererDir = path.resolve(options.rendererDir)
  let port = 0

  const server = http.createServer((request, response) => {
    setCommonHeaders(response)
    if (!tokenMatches(tokenFromRequest(request), token)) return refuse(response, 401, 'missing or wrong access token')
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (request.method === 'POST' && url.pathname === '/import') {
      if (!sameOrigin(request.headers.origin, port)) return refuse(response, 403, 'cross-origin upload refused')
      return void serveImport(request, response)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, 405, 'method not allowed')
    if (url.searchParams.get('token')) response.setHeader('Set-Cookie', tokenCookie(token))
    const exportMatch = /^\/export\/([A-Za-z0-9_-]{1,100})\.(jsonl|otlp\.json)$/.exec(url.pathname)
    if (exportMatch?.[1]) return void serveExport(exportMatch[1], exportMatch[2] === 'jsonl' ? 'jsonl' : 'otlp', response)
    void serveStatic(url.pathname, response)
  })

  const serveExport = async (jobId: string, format: 'jsonl' | 'otlp', response: http.ServerResponse): Promise<void> => {
    try {
      const [type, extension] = format === 'jsonl' ? ['application/x-ndjson', 'jsonl'] : ['application/json', 'otlp.json']
      response.setHeader('Content-Type', `${type}; charset=utf-8`)
      response.setHeader('Content-Disposition', `attachment; filename="arbor-${jobId}.${extension}"`)
      await options.engine.exportTrace(jobId, response, format)
      response.end()
    } catch (error) {
      if (!response.headersSent) {
        response.removeHeader('Content-Disposition')
        return refuse(response, 404, error instanceof Error ? error.message : 'export failed')
      }
      response.destroy(error instanceof Error ? error : undefined)
    }
  }

  /** A trace uploaded by the browser: streamed to a private temp file, then imported read-only. */
  const serveImport = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const maxBytes = options.maxImportBytes ?? 1 << 30
    const declared = Number(request.headers['content-length'] ?? 0)
    if (declared > maxBytes) {
      response.setHeader('Connection', 'close')
      return sendJson(response, 413, { error: { code: 'invalid_request', message: `the file is larger than ${maxBytes} bytes` } })
    }
    const folder = await mkdtemp(path.join(os.tmpdir(), 'arbor-upload-'))
    const file = path.join(folder, 'trace.jsonl')
    const tooLarge = { error: { code: 'invalid_request', message: `the file is larger than ${maxBytes} bytes` } }
    try {
      let received = 0
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length
          done(received > maxBytes ? new UploadTooLarge() : null, chunk)
        },
      })
      await pipeline(request, limit, createWriteStream(file, { mode: 0o600 }))
      sendJson(response, 200, options.engine.importTrace(file))
    } catch (error) {
      if (response.headersSent || response.destroyed) return
      // Answer first, then close: the rest of an oversized body is not read.
      if (error instanceof UploadTooLarge) response.setHeader('Connection', 'close')
      sendJson(response, error instanceof UploadTooLarge ? 413 : 400, error instanceof UploadTooLarge ? tooLarge : { error: { code: 'invalid_request', message: error instanceof Error ? error.message : String(error) } })
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  }

  const serveStatic = async (pathname: string, response: http.ServerResponse): Promise<void> => {
    let relative: string
    try {
      relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    } catch {
      return refuse(response, 400, 'bad percent-escape in the path')
    }
    const file = path.resolve(rendererDir, relative)
    if (!file.startsWith(rendererDir + path.sep)) return refuse(response, 404, 'not found')
    const info = await stat(file).catch(() => null)
    if (!info?.isFile()) return refuse(response, 404, 'not found')
    response.setHeader('Content-Type', contentTypes[path.extname(file)] ?? 'application/octet-stream')
    response.setHeader('Content-Length', info.size)
    if (file.endsWith('.html')) response.setHeader('Content-Security-Policy', contentSecurityPolicy(port))
    createReadStream(file).pipe(response)
  }

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 })
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/ws' || !sameOrigin(request.headers.origin, port) || !tokenMatches(tokenFromRequest(request), token)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    sockets.handleUpgrade(request, socket, head, (client) => sockets.emit('connection', client))
  })

  sockets.on('connection', (client: WebSocket) => {
    client.on('message', async (raw) => {
      let parsed
      try {
        parsed = requestSchema.safeParse(JSON.parse(String(raw)))
      } catch {
        parsed = null
      }
      if (!parsed?.success) {
        const message = parsed ? parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') : 'not JSON'
        client.send(JSON.stringify({ id: null, result: { ok: false, error: { code: 'invalid_request', message } } }))
        return
      }
      // A browser downloads exports over HTTP; it never makes the server write a file.
      const result = browserRefusals[parsed.data.method] ?? (await dispatch(parsed.data.method, parsed.data.input))
      if (client.readyState === client.OPEN) client.send(JSON.stringify({ id: parsed.data.id, result }))
    })
  })

  const unsubscribe = options.engine.subscribe((notification) => {
    const frame = JSON.stringify({ notification })
    for (const client of sockets.clients) if (client.readyState === client.OPEN) client.send(frame)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}/?token=${token}`
  return {
    url,
    port,
    token,
    close: async () => {
      unsubscribe()
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function setCommonHeaders(response: http.ServerResponse): void {
  response.setHeader('X-Content-Type-Options', 'nosniff')
  response.setHeader('Referrer-Policy', 'no-referrer')
  response.setHeader('X-Frame-Options', 'DENY')
  response.setHeader('Cache-Control', 'no-store')
}

class UploadTooLarge extends Error {}

/**
 * Methods a browser may not call by file path: it downloads exports and uploads traces over HTTP,
 * so it never makes the server write or read a file it names.
 */
const browserRefusals: Record<string, { ok: false; error: { code: 'invalid_request'; message: string } }> = {
  exportJob: { ok: false, error: { code: 'invalid_request', message: 'exportJob: download GET /export/<job_id>.jsonl (or .otlp.json) instead' } },
  importTrace: { ok: false, error: { code: 'invalid_request', message: 'importTrace: upload the file with POST /import instead' } },
}

/** A browser request from our own page (or a non-browser client, which sends no Origin). */
const sameOrigin = (origin: string | undefined, port: number): boolean =>
  origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.statusCode = status
  response.setHeader('Content-Type', 'application/json; charset=utf-8')
  response.end(JSON.stringify(body))
}

function refuse(response: http.ServerResponse, status: number, message: string): void {
  response.statusCode = status
  response.setHeader('Content-Type', 'text/plain; charset=utf-8')
  response.end(`${message}\n`)
}

const contentSecurityPolicy = (port: number): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
