import { useShallow } from 'zustand/react/shallow'
import { ArborLogo } from '../start/ArborLogo'
import { useArbor, type ArborState } from '../store'

const selectTopBar = (state: ArborState) => ({
  project: state.project,
  traceOnly: state.traceOnly,
  allPaused: state.allPaused,
  connected: state.connected,
})

/** Project name (back to the start screen), connection state, the global pause, help and settings. */
export function TopBar() {
  const { project, traceOnly, allPaused, connected } = useArbor(useShallow(selectTopBar))
  const toStart = () => void useArbor.getState().closeProject()
  return (
    <header className="top-bar">
      <button className="brand" title="Projects" onClick={toStart}>
        <ArborLogo size={18} /> Arbor
      </button>
      <span className="top-bar__sep">/</span>
      <button
        className="project-name"
        data-testid="project-name"
        title={project ? `${project.path}\nBack to projects (open another folder)` : 'Back to projects'}
        onClick={toStart}
      >
        {project?.name ?? (traceOnly ? 'Imported trace' : 'No project')}
      </button>
      <span className="top-bar__spacer" />
      {!connected && <span className="pill bad">● reconnecting…</span>}
      {project && (
        <button
          className={`pill${allPaused ? ' warn' : ''}`}
          data-testid="global-pause"
          data-paused={allPaused ? 'true' : 'false'}
          title={
            allPaused
              ? 'No job spawns new subagents until resumed'
              : "Hold every job's new subagents (each job's toolbar also has its own Pause spawning)"
          }
          onClick={() => void useArbor.getState().setAllPaused(!allPaused)}
        >
          {/* It names what a click does, for every job: a job paused on its own never makes it read "on". */}
          {allPaused ? '‖ Spawning paused in all jobs · Resume' : 'Pause spawning in all jobs'}
        </button>
      )}
      <button
        className="top-bar__icon"
        data-testid="shortcuts-button"
        title="Keyboard shortcuts (?)"
        aria-label="Keyboard shortcuts"
        onClick={() => useArbor.getState().toggleShortcuts()}
      >
        ?
      </button>
      <button
        className="top-bar__icon"
        data-testid="open-settings"
        title="Settings (,)"
        aria-label="Settings"
        onClick={() => useArbor.getState().openSettings()}
      >
        ⚙
      </button>
    </header>
  )
}
