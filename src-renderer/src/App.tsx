import './styles/overlays.css'
import { ApprovalsPanel } from './controls/ApprovalsPanel'
import { JobToolbar } from './controls/JobToolbar'
import { NoticeBar } from './controls/NoticeBar'
import { TopBar } from './controls/TopBar'
import { DropOverlay } from './drop/DropOverlay'
import { InspectorDock } from './inspector/InspectorDock'
import { JobList } from './jobs/JobList'
import { NewJob } from './jobs/NewJob'
import { NewJobDialog } from './jobs/NewJobDialog'
import { SettingsPage } from './settings/SettingsPage'
import { KillConfirm } from './shortcuts/KillConfirm'
import { JobAnswer } from './controls/JobAnswer'
import { ShortcutHandler } from './shortcuts/ShortcutHandler'
import { ShortcutsHelp } from './shortcuts/ShortcutsHelp'
import { StartScreen } from './start/StartScreen'
import { useArbor, type ArborState } from './store'
import { CentreViews } from './timeline/CentreViews'

const selectScreen = (state: ArborState) => (!state.ready ? 'booting' : state.project || state.traceOnly ? 'project' : 'start')
const selectHasProject = (state: ArborState) => state.project !== null

/** The start screen with no folder open; else the project view. Drops, notices and dialogs work on both. */
export function App() {
  const screen = useArbor(selectScreen)
  return (
    <>
      {screen === 'project' && <ProjectView />}
      {screen === 'start' && <StartScreen />}
      <DropOverlay />
      <NoticeBar />
      <NewJobDialog />
      <SettingsPage />
    </>
  )
}

/** Project view: jobs on the left, the tree (or its timeline) in the centre, inspectors on the right. */
function ProjectView() {
  // A trace opened with no project shows read-only: nothing to start there.
  const hasProject = useArbor(selectHasProject)
  return (
    <div className="app">
      <TopBar />
      <div className="workspace">
        <nav className="sidebar">
          {hasProject && <NewJob />}
          <JobList />
        </nav>
        <main className="centre">
          <JobToolbar />
          <JobAnswer />
          <KillConfirm />
          <ApprovalsPanel />
          <CentreViews />
        </main>
        <InspectorDock />
      </div>
      <ShortcutHandler />
      <ShortcutsHelp />
    </div>
  )
}
