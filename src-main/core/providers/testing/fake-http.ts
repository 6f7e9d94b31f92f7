import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'

/**
 * The provider-neutral half of the fake model servers (fake-openai.ts, fake-anthropic.ts): a
 * node:http server on 127.0.0.1 that records every request and answers each one from a FIFO
 * queue first, then from a router (usually `conversations(...)`), else with a 400 that says no
 * response was scripted. Each provider module turns its scripted responses into SSE frames.
 */

export interface RecordedRequest {
  /** 1-based, in arrival order. */
  seq: number
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: unknown
  received_at: number
  /** When the response ended (null while it streams). Overlaps show concurrent agents. */
  finished_at: number | null
}

/** Answers every provider fake understands. */
export type CommonResponse =
  | { kind: 'http_error'; status: number; body: unknown; headers?: Record<string, string> }
  /** A body served verbatim, e.g. a recorded SSE stream, or an HTML page. */
  | { kind: 'raw'; body: string; status?: number; content_type?: string }
  /** Reads the request and never answers, not even with headers, until the client leaves. */
  | { kind: 'no_answer' }

/** How long a 429 asks to wait: `retry-after` in seconds, `retry-after-ms` (OpenAI's, Anthropic's SDKs read both). */
export interface RetryAfter {
  seconds?: number
  ms?: number
}

export function retryAfterHeaders(after: RetryAfter | number | undefined): Record<string, string> {
  const { seconds, ms } = typeof after === 'number' ? { seconds: after, ms: undefined } : (after ?? {})
  return {
    ...(seconds === undefined ? {} : { 'retry-after': String(seconds) }),
    ...(ms === undefined ? {} : { 'retry-after-ms': String(ms) }),
  }
}

/** The page a reverse proxy (nginx here) answers with when the API behind it is down: HTML, not JSON. */
export const proxyErrorPage = (
  status: 502 | 503 | 504,
  reason = status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Temporarily Unavailable' : 'Gateway Time-out',
): CommonResponse => ({
  kind: 'raw',
  status,
  content_type: 'text/html',
  body: `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
})

/** What a provider module makes of a scripted response. */
export interface SseStream {
  frames: string[]
  /** `disconnect` destroys the socket after the frames; `hang` keeps it open until the client leaves. */
  ending: 'end' | 'disconnect' | 'hang'
  delay_ms?: number
  /** Pause between frames, to watch a stream arrive. */
  frame_delay_ms?: number
}

export interface FakeServer<R> {
  /** `http://127.0.0.1:PORT`, no path. */
  url: string
  requests: RecordedRequest[]
  enqueue(...responses: R[]): void
  /** Scripted queue entries not yet used. */
  queued(): number
  close(): Promise<void>
}

export interface FakeServerOptions<R> {
  paths: readonly string[]
  queue?: R[]
  /** May answer later (a promise): the request waits, as a slow model's would. */
  route?: (request: RecordedRequest) => R | undefined | Promise<R | undefined>
  encode: (response: R, request: RecordedRequest) => CommonResponse | SseStream
  /** The provider's error body for a message (404s and unscripted requests). */
  errorBody: (status: number, message: string) => unknown
}

export async function startFakeServer<R>(options: FakeServerOptions<R>): Promise<FakeServer<R>> {
  const queue = [...(options.queue ?? [])]
  const requests: RecordedRequest[] = []
  const server = createServer((incoming, out) => {
    void handle(incoming, out).catch((error: unknown) => {
      if (!out.headersSent) out.writeHead(500, { 'content-type': 'application/json' })
      out.end(JSON.stringify(options.errorBody(500, `fake server failed: ${String(error)}`)))
    })
  })

  async function handle(incoming: IncomingMessage, out: ServerResponse): Promise<void> {
    const text = await readBody(incoming)
    const path = (incoming.url ?? '/').split('?')[0] ?? '/'
    const request: RecordedRequest = {
      seq: requests.length + 1,
      method: incoming.method ?? 'GET',
      path,
      headers: { ...incoming.headers },
      body: parseJson(text),
      received_at: Date.now(),
      finished_at: null,
    }
    requests.push(request)
    out.on('close', () => (request.finished_at = Date.now()))
    if (incoming.method !== 'POST' || !options.paths.includes(path)) {
      return sendJson(out, 404, options.errorBody(404, `fake server: no route for ${incoming.method} ${path}`))
    }
    const scripted = queue.length > 0 ? queue.shift() : await options.route?.(request)
    if (scripted === undefined) {
      const first = JSON.stringify(request.body).slice(0, 300)
      return sendJson(out, 400, options.errorBody(400, `fake server: no scripted response for request #${request.seq} (${first})`))
    }
    const answer = options.encode(scripted, request)
    if ('kind' in answer) {
      if (answer.kind === 'http_error') return sendJson(out, answer.status, answer.body, answer.headers)
      if (answer.kind === 'no_answer') return untilClientLeaves(incoming)
      out.writeHead(answer.status ?? 200, { 'content-type': answer.content_type ?? 'text/event-stream' })
      out.end(answer.body)
      return
    }
    await writeStream(incoming, out, answer)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    queued: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function writeStream(incoming: IncomingMessage, out: ServerResponse, stream: SseStream): Promise<void> {
  if (stream.delay_ms) await delay(stream.delay_ms)
  out.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' })
  for (const frame of stream.frames) {
    if (out.destroyed) return
    out.write(frame)
    if (stream.frame_delay_ms) await delay(stream.frame_delay_ms)
  }
  if (stream.ending === 'end') out.end()
  else if (stream.ending === 'disconnect') out.socket?.destroy()
  else await untilClientLeaves(incoming)
}

const untilClientLeaves = (incoming: IncomingMessage): Promise<void> =>
  new Promise<void>((resolve) => (incoming.socket.destroyed ? resolve() : incoming.socket.once('close', () => resolve())))

function sendJson(out: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  out.writeHead(status, { 'content-type': 'application/json', ...headers })
  out.end(JSON.stringify(body))
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of incoming) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null
  } catch {
    return text
  }
}

/** A request seen as a conversation: which agent asks (system prompt, first user message) and for which turn. */
export interface ConversationView {
  model: string
  system: string
  first_user: string
  /** Assistant messages already in the history: 0 for an agent's first call. */
  turn: number
  /** Tool results sent since the last assistant message. */
  tool_results: Array<{ tool_call_id: string; content: string }>
  tools: string[]
}

export interface ConversationScript<R> {
  /** A string or RegExp is looked for in the first user message; a function sees the whole view. */
  match: string | RegExp | ((view: ConversationView) => boolean)
  /** Turn i answers the conversation's i-th call; past the end, `then` (else the server's 400). */
  turns: Array<R | ((view: ConversationView) => R)>
  then?: R
}

/**
 * A stateless router: the response depends only on which conversation asks and how far it is,
 * so concurrent agents and retried requests get the right answer whatever the arrival order.
 */
export function conversations<R>(view: (request: RecordedRequest) => ConversationView, scripts: Array<ConversationScript<R>>) {
  return (request: RecordedRequest): R | undefined => {
    const seen = view(request)
    const script = scripts.find(({ match }) =>
      typeof match === 'string' ? seen.first_user.includes(match) : match instanceof RegExp ? match.test(seen.first_user) : match(seen),
    )
    if (!script) return undefined
    const turn = script.turns[seen.turn]
    if (turn === undefined) return script.then
    return typeof turn === 'function' ? (turn as (view: ConversationView) => R)(seen) : turn
  }
}

/** `first` the first time it is asked, `then` after: a transient failure inside a conversation script. */
export function once<R>(first: R, then: R): () => R {
  let used = false
  return () => {
    if (used) return then
    used = true
    return first
  }
}

/** Splits `text` into exactly `pieces` non-empty parts of nearly equal length (fewer only if it is shorter). */
export function split(text: string, pieces: number): string[] {
  const count = Math.max(1, Math.min(Math.floor(pieces), text.length))
  return Array.from({ length: count }, (_, i) =>
    text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)),
  )
}

/** Word-sized deltas, like a model's tokens. */
export const words = (text: string): string[] => text.match(/\s*\S+\s*/g) ?? [text]

export const estimateTokens = (characters: number): number => Math.max(1, Math.ceil(characters / 4))
