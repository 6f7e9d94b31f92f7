import type { SqliteDatabase } from './database'
import { fileContentHash } from './file-contents'
import { jsonlFormat, type ExportFormat } from './export'
import type { EventRow } from './rows'
import type { FileContentLine } from '../trace/file-content-line'

/**
 * Trace JSONL with the file contents its `file.change` events name (`arbor export
 * --with-file-contents`): before the first event naming a version, a `file.content` line with
 * its bytes (trace/file-content-line.ts), each version once. A version the store does not hold
 * (over the cap, never known) or holds corrupt (its bytes do not hash to its name) gets no line;
 * one whose bytes hold a known secret gets a line marked `withheld` without them: the rest of the
 * export's redaction works on text and cannot take a key out of base64.
 */
export function jsonlWithContentsFormat(db: SqliteDatabase, secrets: readonly string[] = []): ExportFormat {
  const plain = jsonlFormat()
  const select = db.prepare<[string], { content: Buffer }>('SELECT content FROM file_contents WHERE hash = ?')
  const needles = secrets.map((secret) => Buffer.from(secret))
  const written = new Set<string>()
  let contentLines = 0
  const contentLine = (hash: string): string => {
    if (written.has(hash)) return ''
    written.add(hash)
    const bytes = select.get(hash)?.content
    if (!bytes || fileContentHash(bytes) !== hash) return ''
    const line: FileContentLine = needles.some((needle) => bytes.includes(needle))
      ? { type: 'file.content', hash, size: bytes.byteLength, withheld: 'secret' }
      : { type: 'file.content', hash, size: bytes.byteLength, base64: bytes.toString('base64') }
    contentLines += 1
    return JSON.stringify(line) + '\n'
  }
  return {
    begin: (job, exportedAt) => plain.begin(job, exportedAt),
    event(row: EventRow) {
      const line = plain.event(row)
      if (row.type !== 'file.change') return line
      let data: { hash_before?: unknown; hash_after?: unknown }
      try {
        data = JSON.parse(row.data) as typeof data
      } catch {
        return line
      }
      const hashes = [data.hash_before, data.hash_after].filter((hash): hash is string => typeof hash === 'string')
      return hashes.map(contentLine).join('') + line
    },
    end: (events) => {
      plain.end(events)
      return ''
    },
    get count() {
      return plain.count + contentLines
    },
  }
}
