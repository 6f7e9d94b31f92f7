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

/**
 * A job's last recorded change of each path, to drop `bash` changes that are another agent's
 * echo. A command's before/after snapshot sees every write made in the folder while it ran; a
 * `write_file` or `edit_file` of another agent meanwhile is recorded by that agent first (it is
 * sent as it writes), so a `bash` change of the same path from the same version to the same
 * version is that write seen again, not the command's. A command that changed the file after the
 * other write ends at another version and is kept. Two agents' commands writing one file at once
 * are still not told apart (docs/trace-format.md).
 */
export class JobFileChanges {
  private readonly last = new Map<string, { agent_id: string; hash_before: string | null; hash_after: string | null }>()

  /** Whether `data` is to be recorded for `agentId`; remembers it when it is. */
  admit(agentId: string, data: EventData<'file.change'>): boolean {
    // A path is one file per folder: the project's, or a worktree's (by its branch).
    const key = (path: string) => `${data.branch ?? ''}\0${path}`
    const earlier = this.last.get(key(data.path))
    const echo =
      data.tool === 'bash' &&
      data.kind !== 'renamed' &&
      earlier !== undefined &&
      earlier.agent_id !== agentId &&
      earlier.hash_before === data.hash_before &&
      earlier.hash_after === data.hash_after
    if (echo) return false
    this.last.set(key(data.path), { agent_id: agentId, hash_before: data.hash_before, hash_after: data.hash_after })
    if (data.from_path !== undefined) this.last.delete(key(data.from_path))
    return true
  }
}
