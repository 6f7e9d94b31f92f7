import { describe, expect, it } from 'vitest'
import { fileContentHash } from '../store/file-contents'
import type { EventData } from '../trace/events'
import { fileContentCapBytes } from '../trace/file-changes'
import { admitFileContents, JobFileChanges } from './file-change-intake'

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

describe('JobFileChanges', () => {
  const change = (over: Partial<EventData<'file.change'>>): EventData<'file.change'> => ({
    ...data,
    hash_before: 'h1',
    hash_after: 'h2',
    ...over,
  })

  it("drops a bash change that is another agent's write seen again, from the same version to the same version", () => {
    const job = new JobFileChanges()
    expect(job.admit('editor', change({ tool: 'edit_file' }))).toBe(true)
    expect(job.admit('basher', change({ tool: 'bash' }))).toBe(false)
  })

  it("keeps a bash change that went on past the other agent's write, the agent's own, and one of another file", () => {
    const job = new JobFileChanges()
    expect(job.admit('editor', change({ tool: 'write_file' }))).toBe(true)
    expect(job.admit('basher', change({ tool: 'bash', hash_after: 'h3' }))).toBe(true)
    expect(job.admit('basher', change({ tool: 'bash', path: 'other.txt' }))).toBe(true)
    const own = new JobFileChanges()
    expect(own.admit('basher', change({ tool: 'bash' }))).toBe(true)
    expect(own.admit('basher', change({ tool: 'bash' }))).toBe(true)
  })

  it("keeps a bash change of the same path in another folder: a worktree's file is not the project's", () => {
    const job = new JobFileChanges()
    expect(job.admit('editor', change({ tool: 'edit_file' }))).toBe(true)
    expect(job.admit('isolated', change({ tool: 'bash', branch: 'arbor/job/child-1' }))).toBe(true)
    expect(job.admit('sibling', change({ tool: 'bash', branch: 'arbor/job/child-1' }))).toBe(false)
  })

  it('never drops a write_file or edit_file change', () => {
    const job = new JobFileChanges()
    expect(job.admit('a', change({ tool: 'bash' }))).toBe(true)
    expect(job.admit('b', change({ tool: 'edit_file' }))).toBe(true)
  })
})
