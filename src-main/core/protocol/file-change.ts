import { createHash } from 'node:crypto'
import type { EventData } from '../trace/events'
import { fileContentCapBytes, type FileChangeKind } from '../trace/file-changes'

/**
 * One change to a project file, as the agent process knows it (a tool's), or the supervisor (a
 * merge's), and how it becomes a `file.change` event: the event's data plus the contents it
 * names, which travel with it (the `event` message's `contents`, then the trace writer's append)
 * and are stored in the same transaction as the event, so no event names a hash whose row is missing.
 */

/** A version of a file: its size, and its SHA-256 and bytes when they are known (bytes only up to the cap). */
export interface FileVersion {
  size: number
  /** Null when the content could not be read (a file over the hashing limit, one gone before it was read). */
  hash: string | null
  /** Null over the cap (1 MiB) or when unknown. */
  content: Buffer | null
}

export interface FileChange {
  /** Relative to the project folder, `/` separators. */
  path: string
  kind: FileChangeKind
  from_path?: string
  /** Null for a created file. */
  before: FileVersion | null
  /** Null for a deleted file. */
  after: FileVersion | null
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** The version of these bytes: hashed always, kept when within the cap. */
export const versionOf = (bytes: Buffer): FileVersion => ({
  size: bytes.byteLength,
  hash: sha256(bytes),
  content: bytes.byteLength <= fileContentCapBytes ? bytes : null,
})

/** Files larger than this are not read to be hashed: their change is recorded with size only. */
export const maxHashedBytes = 64 * 1024 * 1024

/** The path of a change in the trace: relative, with `/` separators on every platform. */
export const tracePath = (relative: string): string => relative.split('\\').join('/')

/** A version whose size is known but not its content. */
export const unreadVersion = (size: number): FileVersion => ({ size, hash: null, content: null })

/** Whether two versions are the same bytes (a write of equal content is no change). */
export const sameVersion = (a: FileVersion | null, b: FileVersion | null): boolean =>
  a !== null && b !== null && a.size === b.size && a.hash !== null && a.hash === b.hash

/** The event's data and the contents that go with it (each distinct version once). */
export function fileChangeEvent(
  change: FileChange,
  callId: string | null,
  tool: string,
): { data: EventData<'file.change'>; contents: Buffer[] } {
  const { before, after } = change
  const contents = new Map<string, Buffer>()
  let stored = true
  for (const version of [before, after]) {
    if (!version) continue
    if (version.hash === null || version.content === null) stored = false
    else contents.set(version.hash, version.content)
  }
  return {
    data: {
      path: change.path,
      kind: change.kind,
      ...(change.from_path === undefined ? {} : { from_path: change.from_path }),
      by_tool_call: callId,
      tool,
      bytes_before: before?.size ?? null,
      bytes_after: after?.size ?? null,
      hash_before: before?.hash ?? null,
      hash_after: after?.hash ?? null,
      content_stored: stored,
    },
    contents: [...contents.values()],
  }
}
