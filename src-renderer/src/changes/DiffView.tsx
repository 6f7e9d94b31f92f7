import type { DiffHunk, DiffLine, FileDiff } from '@core/trace/change-views'
import { hunkHeader } from '@core/trace/change-views'
import { useEffect, useMemo, useState } from 'react'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import { highlightLine, languageOf } from './highlight'

export type DiffScope = { job_id: string; agent_id?: string; subtree?: boolean }
type Layout = 'unified' | 'split'

/**
 * One file's diff over a scope (API getFileDiff): unified, or side by side, syntax-coloured;
 * each hunk links to the tool call that made it (its agent's inspector, scrolled to the call).
 * A binary file, or one whose versions were not stored, is named with why there is no diff.
 */
export function DiffView({ scope, path, branch, revision }: { scope: DiffScope; path: string; branch?: string; revision: number }) {
  const [diff, setDiff] = useState<FileDiff | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [layout, setLayout] = useState<Layout>('unified')
  const { job_id, agent_id, subtree } = scope
  useEffect(() => {
    let live = true
    api()
      .getFileDiff({ job_id, ...(agent_id ? { agent_id } : {}), ...(subtree ? { subtree } : {}), path, ...(branch ? { branch } : {}) })
      .then(
        (answer) => live && (setDiff(answer), setError(null)),
        (failure: unknown) => live && setError(errorText(failure)),
      )
    return () => {
      live = false
    }
  }, [job_id, agent_id, subtree, path, branch, revision])
  const language = useMemo(() => languageOf(path), [path])
  if (error) return <div className="changes__note error">{error}</div>
  if (!diff) return <div className="changes__note">Loading diff…</div>
  const { file } = diff
  return (
    <div className="diff" data-testid="diff-view" data-path={path} data-layout={layout}>
      <div className="diff__head">
        <span className="diff__path">{file.from_path ? `${file.from_path} → ${file.path}` : file.path}</span>
        <div className="diff__layouts" role="group" aria-label="Diff layout">
          {(['unified', 'split'] as const).map((option) => (
            <button
              key={option}
              type="button"
              className={`chip${layout === option ? ' active' : ''}`}
              aria-pressed={layout === option}
              data-testid={`diff-${option}`}
              onClick={() => setLayout(option)}
            >
              {option === 'unified' ? 'Unified' : 'Side by side'}
            </button>
          ))}
        </div>
      </div>
      {file.binary && <div className="changes__note">Binary file: not diffed.</div>}
      {file.content_missing && <div className="changes__note">No diff: {file.content_missing}.</div>}
      {diff.hunks.map((hunk, index) => (
        <Hunk key={index} hunk={hunk} layout={layout} language={language} />
      ))}
      {diff.truncated && <div className="changes__note">The diff is cut short here.</div>}
    </div>
  )
}

function Hunk({ hunk, layout, language }: { hunk: DiffHunk; layout: Layout; language: string | null }) {
  const call = hunk.tool_call
  return (
    <div className="diff__hunk" data-testid="diff-hunk">
      <div className="diff__hunk-head">
        <span>{hunkHeader(hunk)}</span>
        {call && (
          <button
            type="button"
            className="link-button"
            data-testid="hunk-tool-call"
            title="Show the tool call that made this change in its agent's trace"
            onClick={() => {
              const state = useArbor.getState()
              if (call.seq !== null) state.inspectAt(call.agent_id, call.seq)
              else state.inspect(call.agent_id)
            }}
          >
            tool call {call.call_id.slice(-8)}
          </button>
        )}
      </div>
      {layout === 'unified' ? (
        <table className="diff__table unified">
          <tbody>
            {hunk.lines.map((line, index) => (
              <tr key={index} className={`diff__line ${line.kind}`}>
                <td className="diff__number">{line.old_line ?? ''}</td>
                <td className="diff__number">{line.new_line ?? ''}</td>
                <td className="diff__sign">{sign(line)}</td>
                <Code line={line} language={language} />
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <table className="diff__table split">
          <tbody>
            {splitRows(hunk.lines).map(([left, right], index) => (
              <tr key={index}>
                <td className="diff__number">{left?.old_line ?? ''}</td>
                <Code line={left} language={language} />
                <td className="diff__number">{right?.new_line ?? ''}</td>
                <Code line={right} language={language} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

const sign = (line: DiffLine): string => (line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' ')

function Code({ line, language }: { line: DiffLine | null; language: string | null }) {
  if (!line) return <td className="diff__code empty" />
  // highlight.js escapes the text it is given; its HTML is only spans with classes.
  return <td className={`diff__code ${line.kind}`} dangerouslySetInnerHTML={{ __html: highlightLine(line.text, language) }} />
}

/** Side by side: context on both sides; a run of removed lines faces the run of added lines after it. */
export function splitRows(lines: DiffLine[]): [DiffLine | null, DiffLine | null][] {
  const rows: [DiffLine | null, DiffLine | null][] = []
  for (let index = 0; index < lines.length;) {
    const line = lines[index]!
    if (line.kind === 'context') {
      rows.push([line, line])
      index += 1
      continue
    }
    const removed: DiffLine[] = []
    const added: DiffLine[] = []
    while (lines[index]?.kind === 'removed') removed.push(lines[index++]!)
    while (lines[index]?.kind === 'added') added.push(lines[index++]!)
    for (let row = 0; row < Math.max(removed.length, added.length); row += 1) rows.push([removed[row] ?? null, added[row] ?? null])
  }
  return rows
}
