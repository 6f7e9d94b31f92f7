import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const cookieName = 'arbor_token'

/** The token of a request: `?token=` in the URL, else the cookie set on the first page load. */
export function tokenFromRequest(request: IncomingMessage): string | null {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1')
  const fromQuery = url.searchParams.get('token')
  if (fromQuery) return fromQuery
  const cookies = request.headers.cookie?.split(';') ?? []
  for (const cookie of cookies) {
    const [name, ...value] = cookie.trim().split('=')
    if (name === cookieName) return value.join('=')
  }
  return null
}

export function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const tokenCookie = (token: string): string => `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`
