import { useEffect } from 'react'
import { useArbor, type ArborState } from '../store'

const selectConflict = (state: ArborState) => state.mergeConflict

/** How a line of a conflict hunk is drawn: git's markers, the parent's side, the branch's side. */
function lineKind(line: string, side: { current: 'ours' | 'theirs' }): string {
  if (line.startsWith('<<<<<<< ')) {
    side.current = 'ours'
    return 'marker'
  }
  if (line.startsWith('=======')) {
    side.current = 'theirs'
    return 'marker'
  }
  if (line.startsWith('>>>>>>> ')) return 'marker'
  return side.current
}

/**
 * A merge of a worktree child's branch that conflicts with its parent's folder (API mergeBranch):
 * nothing was applied, and each conflicting file is listed with its hunks as git marks them (the
 * parent's side first, the branch's after). Esc or Close dismisses it; the branch stays to merge
 * once the parent's folder changed, or to discard.
 */
export function MergeConflictDialog() {
  const conflict = useArbor(selectConflict)
  useEffect(() => {
    if (!conflict) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') useArbor.getState().closeMergeConflict()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [conflict])
  if (!conflict) return null
  const close = () => useArbor.getState().closeMergeConflict()
  const files = conflict.conflicts.length
  return (
    <div className="overlay-backdrop" onMouseDown={close}>
      <div
        className="merge-conflict"
        role="dialog"
        aria-modal="true"
        aria-labelledby="merge-conflict-title"
        data-testid="merge-conflict"
        data-agent-id={conflict.agentId}
        onMouseDown={(event) => event.stopPropagation()}
      >
        <header className="merge-conflict__head">
          <span id="merge-conflict-title">
            Merging <strong>{conflict.branch}</strong> conflicts
          </span>
          <button className="icon-button" aria-label="Close" onClick={close}>
            ×
          </button>
        </header>
        <p className="merge-conflict__note">
          Nothing was applied: {conflict.label}’s changes conflict with its parent’s folder in {files} file{files === 1 ? '' : 's'}. The
          branch is kept.
        </p>
        <ul className="merge-conflict__files">
          {conflict.conflicts.map((file) => (
            <li key={file.path} className="merge-conflict__file" data-testid="merge-conflict-file" data-path={file.path}>
              <div className="merge-conflict__path">{file.path}</div>
              {file.hunks.length === 0 ? (
                <div className="merge-conflict__none">Not a conflict in the text (a file deleted on one side, or binary).</div>
              ) : (
                file.hunks.map((hunk, index) => {
                  const side = { current: 'ours' as 'ours' | 'theirs' }
                  return (
                    <pre key={index} className="merge-conflict__hunk">
                      {hunk.split('\n').map((line, number) => (
                        <span key={number} className={`merge-conflict__line merge-conflict__line--${lineKind(line, side)}`}>
                          {line}
                          {'\n'}
                        </span>
                      ))}
                    </pre>
                  )
                })
              )}
            </li>
          ))}
        </ul>
        <footer className="merge-conflict__foot">
          <button className="button" data-testid="merge-conflict-close" autoFocus onClick={close}>
            Close
          </button>
        </footer>
      </div>
    </div>
  )
}
