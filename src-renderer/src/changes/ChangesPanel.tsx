import { besideLabels, type ChangedFile, type ChangesView } from '@core/trace/change-views'
import { Fragment, useEffect, useState } from 'react'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import { DiffView } from './DiffView'

const kindLetters: Record<ChangedFile['kind'], string> = { created: 'A', modified: 'M', deleted: 'D', renamed: 'R', unchanged: '=' }
const kindNames: Record<ChangedFile['kind'], string> = {
  created: 'created',
  modified: 'modified',
  deleted: 'deleted',
  renamed: 'renamed',
  unchanged: 'unchanged',
}

/** A file of the list: its path in its folder (the project's, or a worktree's by branch). */
type Selection = { path: string; branch?: string }
const keyOf = (file: Selection): string => `${file.branch ?? ''}\0${file.path}`

/**
 * The Changes tab: the files a scope changed (an agent's own, with the toggle its subtree's; or,
 * without an agent, the whole job's) with +/− counts and who changed them; a file opens its diff
 * below the list. Files an isolated agent changed in its git worktree are listed under their
 * branch, apart from the project folder's (where a merge brought them, by the same agent). It
 * fetches again when a file of the job changes.
 */
export function ChangesPanel({ jobId, agentId, initialPath = null }: { jobId: string; agentId?: string; initialPath?: string | null }) {
  const [subtree, setSubtree] = useState(false)
  const [view, setView] = useState<ChangesView | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [selected, setSelected] = useState<Selection | null>(initialPath ? { path: initialPath } : null)
  const revision = useArbor((state) => (state.changeCounts.jobId === jobId ? state.changeCounts.revision : 0))
  useEffect(() => setSelected(initialPath ? { path: initialPath } : null), [initialPath])
  useEffect(() => {
    let live = true
    api()
      .getChanges({ job_id: jobId, ...(agentId ? { agent_id: agentId, subtree } : {}) })
      .then(
        (answer) => live && (setView(answer), setError(null)),
        (failure: unknown) => live && setError(errorText(failure)),
      )
    return () => {
      live = false
    }
  }, [jobId, agentId, subtree, revision])
  const scope = { job_id: jobId, ...(agentId ? { agent_id: agentId, subtree } : {}) }
  const selectedKey = selected ? keyOf(selected) : null
  const grouped = view?.files.some((file) => file.branch !== undefined) ?? false
  return (
    <div className="changes" data-testid="changes-panel" data-scope={agentId ? (subtree ? 'subtree' : 'agent') : 'job'}>
      <div className="changes__head">
        <span className="changes__summary" data-testid="changes-summary">
          {view ? summary(view) : 'Loading changes…'}
        </span>
        {agentId && (
          <label className="changes__toggle">
            <input type="checkbox" data-testid="changes-subtree" checked={subtree} onChange={(event) => setSubtree(event.target.checked)} />
            with its subtree
          </label>
        )}
      </div>
      {error && <div className="changes__note error">{error}</div>}
      {view && view.files.length === 0 && <div className="changes__note">No files changed.</div>}
      {view && view.files.length > 0 && (
        <ul className="changes__files" data-testid="changes-files">
          {view.files.map((file, index) => (
            <Fragment key={keyOf(file)}>
              {grouped && (index === 0 || view.files[index - 1]!.branch !== file.branch) && <GroupHead branch={file.branch} />}
              <li>
                <button
                  type="button"
                  className={`changes__file${selectedKey === keyOf(file) ? ' selected' : ''}`}
                  data-testid="changed-file"
                  data-path={file.path}
                  {...(file.branch ? { 'data-branch': file.branch } : {})}
                  aria-pressed={selectedKey === keyOf(file)}
                  onClick={() =>
                    setSelected(selectedKey === keyOf(file) ? null : { path: file.path, ...(file.branch ? { branch: file.branch } : {}) })
                  }
                >
                  <span className={`changes__kind ${file.kind}`} title={kindNames[file.kind]}>
                    {kindLetters[file.kind]}
                  </span>
                  <span className="changes__path" title={file.from_path ? `${file.from_path} → ${file.path}` : file.path}>
                    {file.from_path ? `${file.from_path} → ${file.path}` : file.path}
                  </span>
                  <Counts file={file} />
                  <span className="changes__authors">
                    {authors(file)}
                    <Beside file={file} />
                  </span>
                </button>
              </li>
            </Fragment>
          ))}
          {view.more > 0 && <li className="changes__note">{view.more} more files not listed</li>}
        </ul>
      )}
      {selected && (
        <DiffView key={`${selectedKey}:${subtree}`} scope={scope} path={selected.path} branch={selected.branch} revision={revision} />
      )}
    </div>
  )
}

function Counts({ file }: { file: ChangedFile }) {
  if (file.binary) return <span className="changes__counts muted">binary</span>
  if (file.added === null || file.removed === null) return <span className="changes__counts muted">not stored</span>
  return (
    <span className="changes__counts" data-testid="changed-file-counts">
      <span className="added">+{file.added}</span> <span className="removed">−{file.removed}</span>
    </span>
  )
}

const authors = (file: ChangedFile): string =>
  [...new Set(file.authors.map((author) => (author.tool === 'merge' ? `${author.label} (merged)` : author.label)))].join(', ')

/** A change whose command ran beside another agent's: it may be that agent's (revert refuses it). */
function Beside({ file }: { file: ChangedFile }) {
  const others = besideLabels(file)
  if (others.length === 0) return null
  const names = others.join(' or ')
  return (
    <span
      className="changes__beside"
      data-testid="changed-file-beside"
      title={`${names} ran a command in the same folder at the same time: this change may be theirs`}
    >
      {' '}
      ⚠ or {names}?
    </span>
  )
}

/** The head of a folder's files: the project's, or a worktree's, named by its branch. */
function GroupHead({ branch }: { branch: string | undefined }) {
  return (
    <li className="changes__group" data-testid="changes-group" {...(branch ? { 'data-branch': branch } : {})}>
      {branch ? (
        <>
          <span className="changes__branch-mark">⎇</span> <span className="changes__branch">{branch}</span>{' '}
          <span className="changes__group-hint">in its worktree</span>
        </>
      ) : (
        'Project folder'
      )}
    </li>
  )
}

function summary(view: ChangesView): string {
  const count = view.files.length + view.more
  const added = view.files.reduce((sum, file) => sum + (file.added ?? 0), 0)
  const removed = view.files.reduce((sum, file) => sum + (file.removed ?? 0), 0)
  return `${count} ${count === 1 ? 'file' : 'files'} changed · +${added} −${removed}`
}
