import { ApprovalsPanel } from './controls/ApprovalsPanel'
import { JobToolbar } from './controls/JobToolbar'
import { NoticeBar } from './controls/NoticeBar'
import { TopBar } from './controls/TopBar'
import { GraphView } from './graph/GraphView'
import { InspectorDock } from './inspector/InspectorDock'
import { JobList } from './jobs/JobList'
import { NewJob } from './jobs/NewJob'

/** Project view: jobs on the left, the tree in the centre, inspectors on the right. */
export function App() {
  return (
    <div className="app">
      <TopBar />
      <div className="workspace">
        <nav className="sidebar">
          <NewJob />
          <JobList />
        </nav>
        <main className="centre">
          <JobToolbar />
          <ApprovalsPanel />
          <GraphView />
        </main>
        <InspectorDock />
      </div>
      <NoticeBar />
    </div>
  )
}
