import { createHash } from 'node:crypto'
import type { SqliteDatabase } from './database'
import { fileContentCapBytes } from '../trace/file-changes'

/**
 * The store of file versions' contents (migration 010): put by the trace writer with the
 * `file.change` events that name them, read by the Changes views, revert and the export. A
 * version is named by the SHA-256 (hex) of its bytes, so each is kept once.
 */

export const fileContentHash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** Whether a version of this size is stored (the 1 MiB cap). */
export const storesContent = (size: number): boolean => size <= fileContentCapBytes

/** Stores `bytes` unless they are over the cap or already there; returns their hash either way. */
export function putFileContent(db: SqliteDatabase, bytes: Uint8Array): string {
  const hash = fileContentHash(bytes)
  if (storesContent(bytes.byteLength)) {
    // A Uint8Array that crossed a thread (structured clone) is no Buffer; SQLite binds Buffers as BLOBs.
    const blob = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    db.prepare('INSERT OR IGNORE INTO file_contents (hash, size, content) VALUES (?, ?, ?)').run(hash, bytes.byteLength, blob)
  }
  return hash
}

/** The bytes of a version, or undefined when it was not stored (over the cap, or unknown). */
export function getFileContent(db: SqliteDatabase, hash: string): Buffer | undefined {
  const row = db.prepare('SELECT content FROM file_contents WHERE hash = ?').get(hash) as { content: Buffer } | undefined
  return row?.content
}
