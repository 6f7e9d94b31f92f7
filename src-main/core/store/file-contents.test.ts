import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from './database'
import { fileContentHash, getFileContent, putFileContent } from './file-contents'
import { fileContentCapBytes } from '../trace/file-changes'
import { useTempDir } from './testing/temp-dir'

describe('file contents', () => {
  const dir = useTempDir()

  it('stores a version once by its SHA-256 and reads it back byte for byte', () => {
    const db = openDatabase(join(dir(), 'arbor.db'))
    const bytes = Buffer.from([0, 255, 10, 13, 0x80, 0x41])
    const hash = putFileContent(db, bytes)
    expect(hash).toBe(createHash('sha256').update(bytes).digest('hex'))
    expect(putFileContent(db, Buffer.from(bytes))).toBe(hash)
    expect(db.prepare('SELECT count(*) AS n FROM file_contents').get()).toEqual({ n: 1 })
    expect(getFileContent(db, hash)?.equals(bytes)).toBe(true)
    db.close()
  })

  it('keeps no content over the cap, yet names it by its hash', () => {
    const db = openDatabase(join(dir(), 'arbor.db'))
    const atCap = Buffer.alloc(fileContentCapBytes, 1)
    const overCap = Buffer.alloc(fileContentCapBytes + 1, 1)
    expect(getFileContent(db, putFileContent(db, atCap))?.byteLength).toBe(fileContentCapBytes)
    const overHash = putFileContent(db, overCap)
    expect(overHash).toBe(fileContentHash(overCap))
    expect(getFileContent(db, overHash)).toBeUndefined()
    db.close()
  })
})
