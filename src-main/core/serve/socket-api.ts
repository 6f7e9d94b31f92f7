import type { WebSocket, WebSocketServer } from 'ws'
import { z } from 'zod'
import type { ApiError, ApiNotification, ApiResult } from '../api/contract'
import type { Dispatch } from '../api/dispatcher'
import { apiErrorOf, describeIssues } from '../api/errors'
import { describeError } from './replies'

export interface SocketApiOptions {
  dispatch: Dispatch
  subscribe(listener: (notification: ApiNotification) => void): () => void
  log(line: string): void
  /** Time between pings. */
  heartbeatMs: number
  /**
   * A client not heard from (a pong or a request) for this long is dropped. Default 4 pings: a
   * browser answers a ping only once its page has read what came before it, so a page busy for
   * a while on a loaded machine answers late, and is alive.
   */
  silentClientMs?: number
  /** Clock, for tests. */
  now?: () => number
  /** Output a client may leave unread before it is dropped with close code 1013. */
  maxBufferedBytes: number
}

/** How long a dropped client has to read its close frame before its connection is cut. */
const closeGraceMs = 2000

const requestSchema = z.object({ id: z.number().int(), method: z.string().max(100), input: z.unknown() }).strict()

/**
 * The API over the `serve` WebSocket: each text frame is one request, answered by the same
 * dispatcher as Electron's IPC; stored events are pushed to every client. A client is dropped
 * (never the server) when it breaks the protocol (`ws` closes it with 1002, 1007 or 1009 and
 * emits 'error', logged here), is not heard from for `silentClientMs`, or leaves too much
 * output unread.
 * Returns a function that stops the heartbeat and the notifications.
 */
export function serveSocketApi(sockets: WebSocketServer, options: SocketApiOptions): () => void {
  const now = options.now ?? Date.now
  const silentClientMs = options.silentClientMs ?? 4 * options.heartbeatMs
  const lastHeard = new WeakMap<WebSocket, number>()
  const heard = (client: WebSocket): void => void lastHeard.set(client, now())

  const send = (client: WebSocket, frame: string): void => {
    if (client.readyState !== client.OPEN) return
    if (client.bufferedAmount > options.maxBufferedBytes) {
      options.log(`serve: dropped a WebSocket client that left ${client.bufferedAmount} bytes unread`)
      client.close(1013, 'too much unread output; reconnect')
      // The close frame waits behind the unread output: end the connection if it is not read soon.
      setTimeout(() => client.terminate(), closeGraceMs).unref()
      return
    }
    client.send(frame)
  }

  sockets.on('connection', (client: WebSocket) => {
    heard(client)
    client.on('error', (error) => options.log(`serve: closed a WebSocket client: ${describeError(error)}`))
    client.on('pong', () => heard(client))
    client.on('message', (raw) => {
      heard(client)
      answerFrame(String(raw), options.dispatch, options.log)
        .then((frame) => send(client, frame))
        .catch((error: unknown) => options.log(`serve: could not answer a WebSocket client: ${describeError(error)}`))
    })
  })

  let lastTick = now()
  const heartbeat = setInterval(() => {
    const at = now()
    // A late tick means this process's own loop was blocked: what clients sent meanwhile (their
    // pongs) is still unread in the sockets, and timers run before sockets are read. That time
    // is not held against them.
    const blockedMs = Math.max(0, at - lastTick - options.heartbeatMs)
    lastTick = at
    for (const client of sockets.clients) {
      const since = (lastHeard.get(client) ?? at) + blockedMs
      lastHeard.set(client, since)
      if (at - since >= silentClientMs) {
        options.log(`serve: dropped a WebSocket client that stopped answering pings (silent for ${at - since} ms)`)
        client.terminate()
        continue
      }
      if (client.readyState === client.OPEN) client.ping()
    }
  }, options.heartbeatMs)
  heartbeat.unref()

  const unsubscribe = options.subscribe((notification) => {
    try {
      const frame = JSON.stringify({ notification })
      for (const client of sockets.clients) send(client, frame)
    } catch (error) {
      options.log(`serve: could not push events: ${describeError(error)}`)
    }
  })

  return () => {
    clearInterval(heartbeat)
    unsubscribe()
  }
}

/**
 * The reply frame to one request frame, `{id, result}` with `result` an ApiResult. Never throws:
 * a frame that is not a request gets `id: null` and `invalid_request`; a dispatcher that throws
 * anyway, or a value that cannot be encoded, gets `internal`.
 */
export async function answerFrame(raw: string, dispatch: Dispatch, log: (line: string) => void = () => undefined): Promise<string> {
  const request = parseRequest(raw)
  if (!request.ok) {
    log(`serve: refused a WebSocket frame: ${request.error.message.slice(0, 200)}`)
    return replyFrame(null, request)
  }
  const { id, method, input } = request.value
  let result: ApiResult<unknown>
  try {
    result = Object.hasOwn(browserRefusals, method) ? browserRefusals[method]! : await dispatch(method, input)
  } catch (error) {
    log(`serve: ${JSON.stringify(method)} failed: ${describeError(error)}`)
    result = { ok: false, error: apiErrorOf(error) }
  }
  if (!result.ok && result.error.code === 'unknown_method') log(`serve: refused unknown method ${JSON.stringify(method)}`)
  return replyFrame(id, result)
}

function parseRequest(raw: string): ApiResult<z.infer<typeof requestSchema>> {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return failure('invalid_request', 'not JSON')
  }
  const parsed = requestSchema.safeParse(value)
  if (parsed.success) return { ok: true, value: parsed.data }
  return failure('invalid_request', describeIssues(parsed.error.issues, '(frame)'))
}

function replyFrame(id: number | null, result: ApiResult<unknown>): string {
  try {
    return JSON.stringify({ id, result })
  } catch (error) {
    return JSON.stringify({ id, result: failure('internal', `the reply could not be encoded: ${describeError(error)}`) })
  }
}

const failure = (code: ApiError['code'], message: string): { ok: false; error: ApiError } => ({ ok: false, error: { code, message } })

/**
 * Methods a browser may not call by file path: it downloads exports and uploads traces over HTTP,
 * so it never makes the server write or read a file it names.
 */
const browserRefusals: Record<string, ApiResult<never>> = {
  exportJob: failure('invalid_request', 'exportJob: download GET /export/<job_id>.jsonl (or .contents.jsonl, .otlp.json) instead'),
  importTrace: failure('invalid_request', 'importTrace: upload the file with POST /import instead'),
}
