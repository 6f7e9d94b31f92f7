import type { ChangedFile, ChangesView } from '@core/trace/change-views'
import { useEffect, useState } from 'react'
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

/**
 * The Changes tab: the files a scope changed (an agent's own, with the toggle its subtree's; or,
 * without an agent, the whole job's) with +/− counts and who changed them; a file opens its diff
 * below the list. It fetches again when a file of the job changes.
 */
export function ChangesPanel({ jobId, agentId, initialPath = null }: { jobId: string; agentId?: string; initialPath?: string | null }) {
  const [subtree, setSubtree] = useState(false)
  const [view, setView] = useState<ChangesView | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [selected, setSelected] = useState<string | null>(initialPath)
  const revision = useArbor((state) => (state.changeCounts.jobId === jobId ? state.changeCounts.revision : 0))
  useEffect(() => setSelected(initialPath), [initialPath])
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
          {view.files.map((file) => (
            <li key={file.path}>
              <button
                type="button"
                className={`changes__file${selected === file.path ? ' selected' : ''}`}
                data-testid="changed-file"
                data-path={file.path}
                aria-pressed={selected === file.path}
                onClick={() => setSelected(selected === file.path ? null : file.path)}
              >
                <span className={`changes__kind ${file.kind}`} title={kindNames[file.kind]}>
                  {kindLetters[file.kind]}
                </span>
                <span className="changes__path" title={file.from_path ? `${file.from_path} → ${file.path}` : file.path}>
                  {file.from_path ? `${file.from_path} → ${file.path}` : file.path}
                </span>
                <Counts file={file} />
                <span className="changes__authors">{authors(file)}</span>
              </button>
            </li>
          ))}
          {view.more > 0 && <li className="changes__note">{view.more} more files not listed</li>}
        </ul>
      )}
      {selected && <DiffView key={`${selected}:${subtree}`} scope={scope} path={selected} revision={revision} />}
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

const authors = (file: ChangedFile): string => [...new Set(file.authors.map((author) => author.label))].join(', ')

function summary(view: ChangesView): string {
  const count = view.files.length + view.more
  const added = view.files.reduce((sum, file) => sum + (file.added ?? 0), 0)
  const removed = view.files.reduce((sum, file) => sum + (file.removed ?? 0), 0)
  return `${count} ${count === 1 ? 'file' : 'files'} changed · +${added} −${removed}`
}
