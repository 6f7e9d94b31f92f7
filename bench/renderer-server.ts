import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { chromiumLaunchOptions } from '../e2e/support/chromium'
import { contentTypes } from '../src-main/core/serve/static-files'

/**
 * The built renderer the browser benches load: the build's, or ARBOR_BENCH_RENDERER's (another
 * build, say of an earlier commit, to compare with in the same conditions).
 */
export const rendererDir = resolve(process.env.ARBOR_BENCH_RENDERER ?? resolve(import.meta.dirname, '../out/renderer'))

/** Exits 2, naming what is missing, when the build or Chromium is not there. */
export function requireRendererAndChromium(bench: string): void {
  if (!existsSync(join(rendererDir, 'index.html'))) {
    console.error(`${bench} needs the build (out/renderer/index.html): run npm run build first`)
    process.exit(2)
  }
  if (!existsSync(chromiumLaunchOptions.executablePath)) {
    console.error(`${bench} needs Chromium at ${chromiumLaunchOptions.executablePath} (or set CHROMIUM_PATH)`)
    process.exit(2)
  }
}

/** out/renderer as static files on 127.0.0.1, plus `routes` (path → JSON body), nothing else. */
export function serveRenderer(routes: Record<string, string> = {}): Promise<Server> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname)
    const body = routes[pathname]
    if (body !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body)
      return
    }
    const file = normalize(join(rendererDir, pathname === '/' ? 'index.html' : pathname))
    if (!file.startsWith(rendererDir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end('not found')
      return
    }
    response.writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream' })
    response.end(readFileSync(file))
  })
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)))
}
