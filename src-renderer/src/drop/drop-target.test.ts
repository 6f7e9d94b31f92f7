import { describe, expect, it } from 'vitest'
import { dropKindOf } from './drop-target'

describe('dropKindOf', () => {
  it('tells folders, traces and other files apart', () => {
    expect(dropKindOf({ name: 'shop', isDirectory: true, type: '' })).toBe('folder')
    expect(dropKindOf({ name: 'arbor-job_1.jsonl', isDirectory: false, type: '' })).toBe('trace')
    expect(dropKindOf({ name: 'TRACE.JSONL', isDirectory: null, type: 'application/x-ndjson' })).toBe('trace')
    expect(dropKindOf({ name: 'notes.txt', isDirectory: false, type: 'text/plain' })).toBe('other')
    expect(dropKindOf({ name: 'src', isDirectory: null, type: '' })).toBe('folder')
    expect(dropKindOf(undefined)).toBe('none')
  })
})
