import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeTraceRequest } from './otlp-proto'

/** A span as the receiver decoded it: hex ids, 64-bit integers as strings, enums as numbers. */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: { key: string; value: Record<string, unknown> }[]
  status?: { code?: number; message?: string }
}

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The body decoded with the official ExportTraceServiceRequest, or why it could not be. */
  decoded: Record<string, unknown> | null
  decodeError: string | null
}

export interface OtlpReceiver {
  /** The base URL, e.g. http://127.0.0.1:PORT (append /v1/traces for the full one). */
  url: string
  requests: ReceivedRequest[]
  /** Every span of every request, in arrival order. */
  spans(): ReceivedSpan[]
  /** The status the next requests get (200 by default). */
  respondWith(status: number): void
  /** Resolves when `count` requests have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** A real OTLP/HTTP receiver on 127.0.0.1 and a random port, for tests: it decodes each body with the official protos. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = []
  let status = 200
  const waiters = new Set<() => void>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      let decoded: Record<string, unknown> | null = null
      let decodeError: string | null = null
      try {
        decoded = decodeTraceRequest(new Uint8Array(Buffer.concat(chunks)))
      } catch (error) {
        decodeError = error instanceof Error ? error.message : String(error)
      }
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, decoded, decodeError })
      for (const wake of waiters) wake()
      response.writeHead(status, { 'content-type': 'application/x-protobuf' })
      // An empty ExportTraceServiceResponse: no partial success to report.
      response.end(status === 200 ? Buffer.alloc(0) : `status ${status}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests.flatMap((request) => {
        const resourceSpans = (request.decoded?.resourceSpans ?? []) as { scopeSpans?: { spans?: ReceivedSpan[] }[] }[]
        return resourceSpans.flatMap((resource) => (resource.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []))
      }),
    respondWith(next) {
      status = next
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < count) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`the receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
