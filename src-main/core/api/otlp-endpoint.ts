/**
 * Where traces are pushed: an OTLP/HTTP traces URL, and the headers sent with it. Header values
 * often hold credentials (`Authorization`), so nothing here ever puts one in a message.
 */
import { ArborError } from '../errors'

/** The full `…/v1/traces` URL is kept as given; a bare base URL (no path) gets `/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint.trim())
  } catch {
    throw new OtlpEndpointError(`"${endpoint}" is not a URL (e.g. http://localhost:4318/v1/traces)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OtlpEndpointError(`"${endpoint}" is not an http:// or https:// URL`)
  if (url.username || url.password) throw new OtlpEndpointError('put credentials in a header (--header Authorization=…), not in the URL')
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces'
  return url.toString()
}

/** For the settings form: would `tracesUrl` accept it. */
export function isTracesEndpoint(endpoint: string): boolean {
  try {
    tracesUrl(endpoint)
    return true
  } catch {
    return false
  }
}

/** What error messages show of an endpoint: scheme, host, port and path; never a query string. */
export const endpointLabel = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/** HTTP header names (RFC 9110 tokens); a value may hold anything but line breaks. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export function checkHeader(name: string, value: string): void {
  if (!headerName.test(name)) throw new OtlpEndpointError(`"${name}" is not a valid header name`)
  if (/[\r\n\0]/.test(value)) throw new OtlpEndpointError(`the value of header ${name} holds a line break`)
}

/** `K=V` pairs (the CLI's `--header`) as a header object; a bad pair names its key, never its value. */
export function parseHeaders(pairs: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf('=')
    if (at <= 0) throw new OtlpEndpointError(`--header needs NAME=VALUE (got a value without a name or "=")`)
    const name = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    checkHeader(name, value)
    headers[name] = value
  }
  return headers
}

export class OtlpEndpointError extends ArborError<'otlp_endpoint'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.OtlpEndpointError')
  override name = 'OtlpEndpointError'

  constructor(message: string) {
    super('otlp_endpoint', message)
  }
}
