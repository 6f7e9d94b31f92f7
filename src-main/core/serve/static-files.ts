import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type http from 'node:http'
import path from 'node:path'
import { describeError, refuse } from './replies'

/** The content types of the built UI's files (also used by the graph bench's static server). */
export const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

export interface StaticFiles {
  /** The built renderer (out/renderer), resolved. */
  rendererDir: string
  port: number
  log(line: string): void
}

/**
 * A file of the built UI. The page itself (`.html`) needs the token; its scripts and styles do
 * not: they are the same shipped bundle for everyone and hold no data, and without a cookie the
 * browser has no way to send the token when it loads them. A file that cannot be read after all
 * (removed, unreadable) is a 500 and a log line.
 */
export async function serveStatic(files: StaticFiles, pathname: string, authorized: boolean, response: http.ServerResponse): Promise<void> {
  const relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
  const file = path.resolve(files.rendererDir, relative)
  if (!file.startsWith(files.rendererDir + path.sep)) return refuse(response, 404, 'not found')
  const extension = path.extname(file).toLowerCase()
  if (extension === '.html' && !authorized) return refuse(response, 401, 'missing or wrong access token')
  const info = await stat(file).catch(() => null)
  if (!info?.isFile()) return refuse(response, 404, 'not found')
  const stream = createReadStream(file)
  response.on('close', () => stream.destroy())
  stream.on('error', (error) => {
    files.log(`serve: cannot read ${JSON.stringify(relative)}: ${describeError(error)}`)
    if (response.headersSent) response.destroy()
    else refuse(response, 500, 'the file could not be read')
  })
  response.setHeader('Content-Type', contentTypes[extension] ?? 'application/octet-stream')
  response.setHeader('Content-Length', info.size)
  if (extension === '.html') response.setHeader('Content-Security-Policy', contentSecurityPolicy(files.port))
  stream.pipe(response)
}

/**
 * The page's policy. A CSP host source cannot be an IPv6 literal (Chromium logs `ws://[::1]:PORT`
 * as an invalid source on every load), and the server listens on 127.0.0.1 only: its socket is
 * reached as 127.0.0.1 or localhost.
 */
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
