import { createHash } from 'node:crypto'
import type { EventData } from '../trace/events'
import { fileContentCapBytes } from '../trace/file-changes'

/**
 * What the supervisor takes of the contents an agent process sends with a `file.change` (base64
 * in the `event` message): only versions within the cap whose SHA-256 is the event's
 * `hash_before` or `hash_after`, each once. The event's `content_stored` is made true only when
 * every version it names is among them, so a stored event never names a hash with no row (the
 * trace writer inserts these contents in the transaction that inserts the event).
 */
export function admitFileContents(
  data: EventData<'file.change'>,
  encoded: readonly string[] | undefined,
): { data: EventData<'file.change'>; contents: Buffer[] } {
  const named = new Set([data.hash_before, data.hash_after].filter((hash): hash is string => hash !== null))
  const contents = new Map<string, Buffer>()
  for (const text of encoded ?? []) {
    const bytes = Buffer.from(text, 'base64')
    if (bytes.byteLength > fileContentCapBytes) continue
    const hash = createHash('sha256').update(bytes).digest('hex')
    if (named.has(hash)) contents.set(hash, bytes)
  }
  const versionsKnown = (data.bytes_before === null || data.hash_before !== null) && (data.bytes_after === null || data.hash_after !== null)
  const stored = data.content_stored && versionsKnown && [...named].every((hash) => contents.has(hash))
  return {
    data: stored === data.content_stored ? data : { ...data, content_stored: stored },
    contents: stored ? [...contents.values()] : [],
  }
}
