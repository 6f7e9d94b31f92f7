/**
 * Which URLs are the app's own renderer, and the Content-Security-Policy it runs under.
 * Pure functions: the window guards and the IPC sender check both use them.
 */

export type AppUrlCheck = (url: string) => boolean

/**
 * `rendererUrl` is the built `index.html` as a file:// URL, or the dev server's URL in
 * development. A file URL matches only that one file (any hash or query); a dev server URL
 * matches its origin.
 */
export function createAppUrlCheck(rendererUrl: string): AppUrlCheck {
  const expected = new URL(rendererUrl)
  return (candidate) => {
    let url: URL
    try {
      url = new URL(candidate)
    } catch {
      return false
    }
    if (expected.protocol === 'file:') {
      return url.protocol === 'file:' && url.host === expected.host && url.pathname === expected.pathname
    }
    return url.origin === expected.origin
  }
}

/**
 * The policy sent as a response header, on top of the renderer's own meta tag. In development
 * the Vite dev server needs its HMR WebSocket and React Refresh's inline preamble.
 */
export function contentSecurityPolicy(devServerUrl?: string): string {
  const scriptSources = ["'self'"]
  const connectSources = ["'self'"]
  if (devServerUrl !== undefined) {
    const devServer = new URL(devServerUrl)
    scriptSources.push("'unsafe-inline'")
    connectSources.push(`${devServer.protocol === 'https:' ? 'wss:' : 'ws:'}//${devServer.host}`)
  }
  return [
    "default-src 'self'",
    `script-src ${scriptSources.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${connectSources.join(' ')}`,
  ].join('; ')
}
