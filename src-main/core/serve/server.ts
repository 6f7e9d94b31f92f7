import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import path from 'node:path'
import { WebSocketServer } from 'ws'
import { createDispatcher } from '../api/dispatcher'
import type { Engine } from '../engine'
import { describeError, refuse, setCommonHeaders } from './replies'
import { allowedHost, parseTarget, sameOrigin } from './request-checks'
import { serveSocketApi } from './socket-api'
import { serveStatic } from './static-files'
import { tokenFromUrl, tokenMatches } from './token'
import { serveExport, serveImport } from './trace-routes'

export interface ServeOptions {
  engine: Engine
  /** The built renderer (out/renderer). */
  rendererDir: string
  port?: number
  token?: string
  log?: (line: string) => void
  /** Largest trace a browser may upload to POST /import. Default 1 GiB. */
  maxImportBytes?: number
  /** Largest WebSocket frame a client may send. Default 1 MiB. */
  maxFrameBytes?: number
  /** Output a WebSocket client may leave unread before it is dropped. Default 8 MiB. */
  maxBufferedBytes?: number
  /** Time between WebSocket pings. Default 15 s. */
  heartbeatMs?: number
}

export interface RunningServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

/**
 * `arbor serve`: the UI for a browser, bound to 127.0.0.1. A request is refused unless its target
 * parses (400) and its Host names this server (421); then the page, the WebSocket API, exports and
 * imports need the random access token in `?token=` (401), and uploads and WebSocket upgrades
 * from a browser must come from this same host (403). WebSocket requests go through the same
 * dispatcher as Electron's IPC. Whatever a client sends, the answer is an error for that client,
 * never an exception that ends the server.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  const log = options.log ?? (() => undefined)
  const dispatch = createDispatcher(options.engine.handlers, (error) => log(`serve: internal error: ${describeError(error)}`))
  const rendererDir = path.resolve(options.rendererDir)
  const maxImportBytes = options.maxImportBytes ?? 1 << 30
  let port = 0

  const handleRequest = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    setCommonHeaders(response)
    const url = parseTarget(request.url)
    if (!url) return refuse(response, 400, 'bad request target')
    if (!allowedHost(request.headers.host, port))
      return refuse(response, 421, 'this server answers to 127.0.0.1, localhost and [::1] on its own port only')
    const authorized = tokenMatches(tokenFromUrl(url), token)
    if (request.method === 'POST' && url.pathname === '/import') {
      if (!authorized) return refuse(response, 401, 'missing or wrong access token')
      if (!sameOrigin(request.headers.origin, request.headers.host)) return refuse(response, 403, 'cross-origin upload refused')
      return serveImport(options.engine, maxImportBytes, request, response)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, 405, 'method not allowed')
    const exportMatch = /^\/export\/([A-Za-z0-9_-]{1,100})\.(jsonl|contents\.jsonl|otlp\.json)$/.exec(url.pathname)
    if (exportMatch?.[1]) {
      if (!authorized) return refuse(response, 401, 'missing or wrong access token')
      const format = exportMatch[2] === 'jsonl' ? 'jsonl' : exportMatch[2] === 'contents.jsonl' ? 'jsonl_contents' : 'otlp'
      return serveExport(options.engine, exportMatch[1], format, response)
    }
    return serveStatic({ rendererDir, port, log }, url.pathname, authorized, response)
  }

  const server = http.createServer((request, response) => {
    response.on('error', (error) => log(`serve: response failed: ${describeError(error)}`))
    handleRequest(request, response).catch((error: unknown) => {
      log(`serve: ${request.method} ${JSON.stringify(request.url?.slice(0, 200))} failed: ${describeError(error)}`)
      if (!response.headersSent) refuse(response, 500, 'internal error')
      else response.destroy()
    })
  })
  server.on('error', (error) => log(`serve: ${describeError(error)}`))

  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? 1 << 20 })
  const refuseUpgrade = (socket: Duplex, status: string): void => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
  }
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node drops its own error listener from a socket it hands over for an upgrade.
    const onSocketError = (error: Error): void => log(`serve: upgrade socket: ${describeError(error)}`)
    socket.on('error', onSocketError)
    try {
      const url = parseTarget(request.url)
      if (!url || url.pathname !== '/ws') return refuseUpgrade(socket, '400 Bad Request')
      if (!allowedHost(request.headers.host, port)) return refuseUpgrade(socket, '421 Misdirected Request')
      if (!sameOrigin(request.headers.origin, request.headers.host)) return refuseUpgrade(socket, '403 Forbidden')
      if (!tokenMatches(tokenFromUrl(url), token)) return refuseUpgrade(socket, '401 Unauthorized')
      sockets.handleUpgrade(request, socket, head, (client) => {
        socket.off('error', onSocketError)
        sockets.emit('connection', client, request)
      })
    } catch (error) {
      log(`serve: upgrade failed: ${describeError(error)}`)
      socket.destroy()
    }
  })
  const stopSocketApi = serveSocketApi(sockets, {
    dispatch,
    subscribe: (listener) => options.engine.subscribe(listener),
    log,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 8 << 20,
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      stopSocketApi()
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
