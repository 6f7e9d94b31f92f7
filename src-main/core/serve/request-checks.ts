/**
 * What every request to `serve` is checked for before its token: a request target in origin form
 * that parses, and a Host header naming this server. A page that rebinds its own DNS name to
 * 127.0.0.1 reaches the port but still sends its own name as Host, so it is refused.
 */

/** The URL of an origin-form target (`/path?query`); null for absolute-form, `*`, or a bad percent-escape. */
export function parseTarget(target: string | undefined): URL | null {
  if (!target?.startsWith('/')) return null
  try {
    // Appended to a fixed origin, so `//host/...` stays a path instead of naming a host.
    const url = new URL(`http://arbor.invalid${target}`)
    decodeURIComponent(url.pathname)
    return url
  } catch {
    return null
  }
}

/** The names this server answers to: 127.0.0.1, localhost and [::1] with its port (or bare, on port 80). */
export function allowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false
  const names = ['127.0.0.1', 'localhost', '[::1]']
  const allowed = names.map((name) => `${name}:${port}`)
  if (port === 80) allowed.push(...names)
  return allowed.includes(host.toLowerCase())
}

/** A browser request from a page of this same host (or a non-browser client, which sends no Origin). */
export const sameOrigin = (origin: string | undefined, host: string | undefined): boolean =>
  origin === undefined || (host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`)
