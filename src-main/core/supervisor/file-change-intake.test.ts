import { describe, expect, it } from 'vitest'
import { fileContentHash } from '../store/file-contents'
import type { EventData } from '../trace/events'
import { fileContentCapBytes } from '../trace/file-changes'
import { admitFileContents } from './file-change-intake'

const before = Buffer.from('old\n')
const after = Buffer.from([0, 200, 13, 10])
const data: EventData<'file.change'> = {
  path: 'a.bin',
  kind: 'modified',
  by_tool_call: 'c1',
  tool: 'bash',
  bytes_before: 4,
  bytes_after: 4,
  hash_before: fileContentHash(before),
  hash_after: fileContentHash(after),
  content_stored: true,
}
const b64 = (bytes: Buffer) => bytes.toString('base64')

describe('admitFileContents', () => {
  it('keeps the versions the event names, byte for byte, each once', () => {
    const admitted = admitFileContents(data, [b64(before), b64(after), b64(after)])
    expect(admitted.data).toBe(data)
    expect(admitted.contents.map((bytes) => [...bytes])).toEqual([[...before], [...after]])
  })

  it('stores nothing and says so when a named version is missing or its bytes do not match its hash', () => {
    for (const sent of [[b64(before)], [b64(before), b64(Buffer.from('forged'))], undefined]) {
      expect(admitFileContents(data, sent)).toEqual({ data: { ...data, content_stored: false }, contents: [] })
    }
  })

  it('refuses content over the cap, and an event claiming storage for a version it has no hash for', () => {
    const big = Buffer.alloc(fileContentCapBytes + 1, 7)
    const large = { ...data, bytes_after: big.byteLength, hash_after: fileContentHash(big) }
    expect(admitFileContents(large, [b64(before), b64(big)]).data.content_stored).toBe(false)
    expect(admitFileContents({ ...data, hash_before: null }, [b64(after)]).data.content_stored).toBe(false)
  })
})
