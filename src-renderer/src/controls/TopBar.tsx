import { useState, type FormEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'

const selectTopBar = (state: ArborState) => ({
  project: state.project,
  allPaused: state.allPaused,
  connected: state.connected,
})

/** Project name, opening another folder, connection state and the global pause. */
export function TopBar() {
  const { project, allPaused, connected } = useArbor(useShallow(selectTopBar))
  const [editing, setEditing] = useState(false)
  const [path, setPath] = useState('')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!path.trim()) return
    void useArbor.getState().openProject(path.trim())
    setEditing(false)
  }
  return (
    <header className="top-bar">
      <span className="brand">
        <span className="brand__mark">⌥</span> Arbor
      </span>
      <span className="top-bar__sep">/</span>
      {editing ? (
        <form className="open-project" onSubmit={submit}>
          <input
            className="input"
            data-testid="project-path"
            autoFocus
            placeholder="Open folder path…"
            value={path}
            onChange={(event) => setPath(event.target.value)}
            onKeyDown={(event) => event.key === 'Escape' && setEditing(false)}
          />
          <button className="button" type="submit">
            Open
          </button>
        </form>
      ) : (
        <button
          className="project-name"
          data-testid="project-name"
          title={project ? `${project.path}\nClick to open another folder` : 'Open a folder'}
          onClick={() => {
            setPath(project?.path ?? '')
            setEditing(true)
          }}
        >
          {project?.name ?? 'No project — open a folder'}
        </button>
      )}
      <span className="top-bar__spacer" />
      {!connected && <span className="pill bad">● reconnecting…</span>}
      <button
        className={`pill${allPaused ? ' warn' : ''}`}
        data-testid="global-pause"
        title={allPaused ? 'Spawning is paused for all jobs; click to resume' : 'Pause spawning for all jobs'}
        onClick={() => void useArbor.getState().setAllPaused(!allPaused)}
      >
        {allPaused ? '‖ All spawning paused' : '● Spawning on'}
      </button>
    </header>
  )
}
