import type http from 'node:http'

/** Headers on every HTTP answer: no sniffing, no referrer (the page's URL holds the token), no framing, no caching. */
export function setCommonHeaders(response: http.ServerResponse): void {
  response.setHeader('X-Content-Type-Options', 'nosniff')
  response.setHeader('Referrer-Policy', 'no-referrer')
  response.setHeader('X-Frame-Options', 'DENY')
  response.setHeader('Cache-Control', 'no-store')
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.statusCode = status
  response.setHeader('Content-Type', 'application/json; charset=utf-8')
  response.end(JSON.stringify(body))
}

export function refuse(response: http.ServerResponse, status: number, message: string): void {
  response.statusCode = status
  response.removeHeader('Content-Length')
  response.removeHeader('Content-Disposition')
  response.setHeader('Content-Type', 'text/plain; charset=utf-8')
  response.end(`${message}\n`)
}

/** An error's message for a log line, never its stack. */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error))
