import '../styles/start.css'
import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { RecentProject } from '@core/api/contract'
import { useArbor, type ArborState } from '../store'
import { transport } from '../store/api-ref'
import { ArborLogo } from './ArborLogo'
import { PathField } from './PathField'
import { relativeTime } from './path-completion'

const selectRecent = (state: ArborState) => ({ projects: state.recentProjects, loaded: state.recentLoaded })

/** What the user sees with no folder open: open one (picked, typed or recent), or open a trace. */
export function StartScreen() {
  const desktop = transport().kind === 'electron'
  const { projects, loaded } = useArbor(useShallow(selectRecent))
  useEffect(() => {
    void useArbor.getState().loadRecentProjects()
  }, [])

  return (
    <div className="start-screen" data-testid="start-screen">
      <div className="start-screen__inner">
        <header className="start-hero">
          <ArborLogo size={64} />
          <div>
            <h1 className="start-hero__title">Arbor</h1>
            <p className="start-hero__pitch">Watch and steer a code agent’s delegation tree, live.</p>
          </div>
        </header>

        <div className="start-columns">
          <section className="start-section">
            <h2 className="start-section__title">Start</h2>
            {desktop ? <OpenFolderButton /> : <PathField onOpen={(path) => useArbor.getState().openFolder(path)} />}
            <OpenTrace desktop={desktop} />
            <p className="start-tip">
              {desktop
                ? 'Or drop a project folder, or a .jsonl trace, anywhere on this window.'
                : 'Or drop a .jsonl trace anywhere on this page to import it.'}
            </p>
          </section>

          <section className="start-section" data-testid="recent-projects">
            <h2 className="start-section__title">Recent</h2>
            {loaded && projects.length === 0 && <div className="start-empty">No recent projects yet. Folders you open show up here.</div>}
            <div className="recent-list">
              {projects.map((project) => (
                <RecentRow key={project.path} project={project} />
              ))}
            </div>
          </section>
        </div>

        <footer className="start-footer">
          <button className="link-button" data-testid="start-settings" onClick={() => useArbor.getState().openSettings()}>
            Settings: provider keys and prices
          </button>
          <span className="start-footer__sep">·</span>
          <span>
            Press <kbd>?</kbd> in a project for keyboard shortcuts
          </span>
        </footer>
      </div>
    </div>
  )
}

function OpenFolderButton() {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const choose = async () => {
    setBusy(true)
    setError(await useArbor.getState().chooseFolder())
    setBusy(false)
  }
  return (
    <div className="start-action-wrap">
      <button className="start-action primary" data-testid="open-folder" disabled={busy} onClick={() => void choose()}>
        <span className="start-action__icon" aria-hidden>
          ▤
        </span>
        <span className="start-action__text">
          <span className="start-action__title">Open folder…</span>
          <span className="start-action__hint">Run agents on a project</span>
        </span>
      </button>
      {error && (
        <div className="field-error" data-testid="open-folder-error" role="alert">
          {error}
        </div>
      )}
    </div>
  )
}

function OpenTrace({ desktop }: { desktop: boolean }) {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const picker = useRef<HTMLInputElement>(null)
  const run = async (source: File | 'dialog') => {
    setBusy(true)
    setError(null)
    const failed = await useArbor.getState().importTrace(source)
    setBusy(false)
    if (failed) setError(failed)
  }
  return (
    <div className="start-action-wrap">
      <button
        className="start-action"
        data-testid="open-trace"
        disabled={busy}
        onClick={() => (desktop ? void run('dialog') : picker.current?.click())}
      >
        <span className="start-action__icon" aria-hidden>
          ⤒
        </span>
        <span className="start-action__text">
          <span className="start-action__title">{busy ? 'Importing…' : 'Open trace…'}</span>
          <span className="start-action__hint">Read an exported .jsonl trace, read-only</span>
        </span>
      </button>
      {!desktop && (
        <input
          ref={picker}
          type="file"
          accept=".jsonl,.ndjson,application/x-ndjson"
          className="visually-hidden"
          data-testid="trace-file-input"
          tabIndex={-1}
          onChange={(event) => {
            const file = event.target.files?.[0]
            event.target.value = ''
            if (file) void run(file)
          }}
        />
      )}
      {error && (
        <div className="field-error" data-testid="import-error" role="alert">
          Could not import the trace: {error}
        </div>
      )}
    </div>
  )
}

function RecentRow({ project }: { project: RecentProject }) {
  const [error, setError] = useState<string | null>(null)
  const open = async () => {
    if (project.missing) return
    setError(await useArbor.getState().openFolder(project.path))
  }
  return (
    <>
      <button
        className={`recent-project${project.missing ? ' missing' : ''}`}
        data-testid="recent-project"
        data-path={project.path}
        data-missing={project.missing ? 'true' : undefined}
        disabled={project.missing}
        title={project.missing ? `${project.path} is gone (moved or deleted)` : `Open ${project.path}`}
        onClick={() => void open()}
      >
        <span className="recent-project__name">{project.name}</span>
        <span className="recent-project__path">{project.path}</span>
        {project.missing ? (
          <span className="recent-project__missing">missing</span>
        ) : (
          <span className="recent-project__time">{relativeTime(project.opened_at, Date.now())}</span>
        )}
      </button>
      {error && (
        <div className="field-error recent-error" role="alert">
          {error}
        </div>
      )}
    </>
  )
}
