import { describe, expect, it } from 'vitest'
import type { DiffLine } from '@core/trace/change-views'
import { splitRows } from './DiffView'
import { highlightLine, languageOf } from './highlight'

const line = (kind: DiffLine['kind'], text: string): DiffLine => ({ kind, text, old_line: null, new_line: null })

describe('the side-by-side diff', () => {
  it('faces a run of removed lines with the run of added lines after it, context on both sides', () => {
    const rows = splitRows([
      line('context', 'a'),
      line('removed', 'b'),
      line('removed', 'c'),
      line('added', 'B'),
      line('context', 'd'),
      line('added', 'e'),
    ])
    expect(rows.map(([left, right]) => [left?.text ?? null, right?.text ?? null])).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      ['c', null],
      ['d', 'd'],
      [null, 'e'],
    ])
  })

  it('colours a known language and escapes any text', () => {
    expect(languageOf('src/app.tsx')).toBe('typescript')
    expect(languageOf('Makefile')).toBeNull()
    expect(highlightLine('const x = "<b>"', 'typescript')).toBe(
      '<span class="hljs-keyword">const</span> x = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>',
    )
    expect(highlightLine('<img src=x onerror=alert(1)>', null)).toBe('&lt;img src=x onerror=alert(1)&gt;')
  })
})
