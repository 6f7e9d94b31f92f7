import { timingSafeEqual } from 'node:crypto'

/**
 * The access token travels only in `?token=`: on the page's URL (which keeps it across reloads),
 * on the WebSocket URL and on the export and import requests the page makes. Never in a cookie:
 * cookies are not scoped by port, so one set by 127.0.0.1:<port> would also be sent to every
 * other server on 127.0.0.1.
 */
export const tokenFromUrl = (url: URL): string | null => url.searchParams.get('token')

export function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
