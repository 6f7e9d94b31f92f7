import type { StateCreator } from 'zustand'
import type { PendingApproval, ProjectInfo, RecentProject } from '@core/api/contract'
import type { SubagentApprovals } from '@core/trace/statuses'
import type { TraceEvent } from '@core/trace/events'
import type { Job } from '@core/trace/model'
import type { Timeline } from '@core/trace/timeline'
import type { SettingsView } from '@core/api/contract'
import type { NewJob } from '@core/api/job-form'
import type { ExportFormat } from '../api/transport'
import type { AttentionState } from './attention-events'
import type { InspectorState } from './inspector-events'
import type { TreeState } from './tree-state'
import type { ReplayCursor } from './replay-cursor'

/** What the usage plot stacks by, and what it counts (timeline/usage-stacks.ts). */
export type StackBy = 'agent' | 'profile'
export type UsageMetric = 'tokens' | 'cost'

export interface JobsSlice {
  jobs: Record<string, Job>
  jobOrder: string[]
  jobsLoaded: boolean
  selectedJobId: string | null
  /** What each job's root agent answered, by job id: from getTree, then from live agent.end events. */
  answers: Record<string, string>
  loadJobs(): Promise<void>
  selectJob(jobId: string | null): void
  startJob(kind: 'demo' | 'scripted', task?: string): Promise<void>
}

export interface TreeSlice {
  tree: TreeState
  loadTree(jobId: string): Promise<void>
}

export interface InspectorSlice {
  inspectors: InspectorState[]
  selectedAgentId: string | null
  inspect(agentId: string): void
  closeInspector(agentId: string): void
  reloadInspectors(): void
  /** The event a timeline bar asked to show: its inspector scrolls to it and marks it; `nonce` changes on every ask. */
  inspectorFocus: { agentId: string; seq: number; nonce: number } | null
  /** Opens (or keeps) an agent's inspector scrolled to one of its events. */
  inspectAt(agentId: string, seq: number): void
}

export interface ControlsSlice {
  setSpawnPaused(jobId: string, paused: boolean): Promise<void>
  setAllPaused(paused: boolean): Promise<void>
  setAutoApprove(jobId: string, value: boolean): Promise<void>
  setSubagentApprovals(jobId: string, mode: SubagentApprovals): Promise<void>
  /** Sends a running agent a message; resolves once it is delivered (or the failure is reported). */
  steerAgent(agentId: string, text: string): Promise<void>
  /** Continues an agent that ended (the job's root by default) with a new message; true once it runs again. */
  followUp(
    jobId: string,
    text: string,
    options?: { agentId?: string; budgets?: { job_token_budget?: number | null; job_cost_budget?: number | null } },
  ): Promise<boolean>
  /** Resumes an interrupted job (API resumeJob); true once it runs again. */
  resumeJob(jobId: string): Promise<boolean>
  /** Forgets a command approved for the whole job: the next one asks again. */
  revokeApprovedCommand(jobId: string, command: string): Promise<void>
  killAgent(agentId: string): Promise<void>
  /** Asks a running agent, and its subtree, to finish and report within 2 steps (API stopAgent, wrap_up). */
  wrapUpAgent(agentId: string): Promise<void>
  cancelSpawn(agentId: string): Promise<void>
  /** Kills a running (unresponsive) agent's process and restarts it from its history (API restartAgent). */
  restartAgent(agentId: string): Promise<void>
  /** Starts a spawn held by a job limit past it (API allowSpawn). */
  allowSpawn(agentId: string): Promise<void>
  /** Ends an agent's rate-limit wait: its model call goes again at once (API retryNow). */
  retryNow(agentId: string): Promise<void>
  /** Gives a held or queued spawn a new prompt; rejects with the API's error, for its dialog to show. */
  editSpawn(agentId: string, prompt: string): Promise<void>
  /** New caps for a job or an agent's branch (API setBudget); rejects with the API's error, for its form to show. */
  setBudget(target: { jobId: string } | { agentId: string }, caps: { tokens?: number; cost_usd?: number }): Promise<void>
  /** `scope: 'job'` approves the same command for the rest of the job; `message` goes to the agent with a denial. */
  decideApproval(
    approval: PendingApproval,
    decision: 'approved' | 'denied',
    options?: { scope?: 'once' | 'job'; message?: string },
  ): Promise<void>
  exportJob(jobId: string, format?: ExportFormat): Promise<void>
  openProject(path: string): Promise<void>
  /** Applies a worktree child's branch to its parent's folder (API mergeBranch); a conflict opens the conflict dialog. */
  mergeBranch(agentId: string): Promise<void>
  /** Removes a worktree child's worktree, keeping its branch (API discardBranch). */
  discardBranch(agentId: string): Promise<void>
  /** The merge that conflicted, shown file by file (MergeConflictDialog); null: none shown. */
  mergeConflict: MergeConflictView | null
  closeMergeConflict(): void
}

/** A refused merge: which child's branch, and each conflicting file with its hunks. Nothing was applied. */
export interface MergeConflictView {
  agentId: string
  label: string
  branch: string
  conflicts: { path: string; hunks: string[] }[]
}

export interface Notice {
  id: number
  kind: 'error' | 'info'
  text: string
}

export interface UiSlice {
  connected: boolean
  project: ProjectInfo | null
  allPaused: boolean
  collapsed: Record<string, true>
  dockHover: boolean
  notice: Notice | null
  loadState(): Promise<void>
  setConnected(connected: boolean): void
  toggleCollapsed(agentId: string): void
  setDockHover(hover: boolean): void
  notify(kind: Notice['kind'], text: string): void
  dismissNotice(): void
}

export interface LiveSlice {
  /** Applies one batch of live events to every slice in a single store update. */
  applyEventBatch(events: readonly TraceEvent[]): void
  /** After a reconnect: fetch everything again. */
  refreshAll(): void
}

/** The start screen's side: recent projects, opening and closing a folder, importing a trace. */
export interface ProjectsSlice {
  /** The first getState has answered: until then neither the start screen nor a project shows. */
  ready: boolean
  setReady(): void
  recentProjects: RecentProject[]
  recentLoaded: boolean
  /** A trace is shown with no project open (imported from the start screen, or `?job=`). */
  traceOnly: boolean
  loadRecentProjects(): Promise<void>
  /** Opens a folder as the project; resolves to an error for the user, or null. */
  openFolder(path: string): Promise<string | null>
  /** Desktop: the folder dialog; resolves to an error, or null (also when dismissed). */
  chooseFolder(): Promise<string | null>
  /** Back to the start screen. */
  closeProject(): Promise<void>
  /** Imports a trace (a dropped or picked file, or the desktop dialog) and selects its job; resolves to an error, or null. */
  importTrace(source: File | 'dialog'): Promise<string | null>
  /** Shows a job that may not belong to the open project (or with none open), e.g. from `?job=`. */
  showJob(jobId: string): void
}

/** Root approvals waiting and budget warnings, per job, kept live from the event stream. */
export type AttentionSlice = AttentionState

/** What keyboard shortcuts and overlays ask of the views. */
export interface CommandsSlice {
  shortcutsOpen: boolean
  /** Bumped to ask the graph to fit its view. */
  fitViewRequest: number
  /** The agent whose branch the user is asked to confirm killing. */
  confirmKillId: string | null
  toggleShortcuts(open?: boolean): void
  requestFitView(): void
  askKill(agentId: string | null): void
  /** The node menu: open on one agent, at a point of the window (right-click, the node's ⋯, or `.`). */
  nodeMenu: NodeAnchor | null
  openNodeMenu(anchor: NodeAnchor | null): void
  /** The held or queued spawn whose prompt the user edits, and where its dialog opens. */
  promptEdit: NodeAnchor | null
  openPromptEdit(anchor: NodeAnchor | null): void
  /** The agent whose branch budget the user sets (the node menu's Set branch budget…), and where its dialog opens. */
  budgetEdit: NodeAnchor | null
  openBudgetEdit(anchor: NodeAnchor | null): void
}

/** An agent, and the point of the window a popup about it opens at. */
export interface NodeAnchor {
  agentId: string
  x: number
  y: number
}

/** The new-job dialog and the settings page (store/forms-slice.ts). */
export interface FormsSlice {
  newJobOpen: boolean
  openNewJob(): void
  closeNewJob(): void
  settingsOpen: boolean
  /** What openSettings asked to show; `seq` changes on every call, so the page scrolls again. */
  settingsFocus: { priceModel: string | null; seq: number } | null
  openSettings(focus?: { priceModel?: string }): void
  closeSettings(): void
  /** The last settings read; it never holds a key, only where each comes from and its last four characters. */
  settingsView: SettingsView | null
  /** Reads the settings into settingsView; rejects with the API's error. */
  loadSettings(): Promise<SettingsView>
  /** Applies what a settings call returned to settingsView. */
  patchSettings(update: (view: SettingsView) => SettingsView): void
  /** Starts a job from the dialog; on success closes it, reloads the jobs and selects the new one. Rejects with the API's error. */
  startAgentJob(job: NewJob): Promise<string>
}

/** The selected job's timeline, fetched folded (getTimeline) then folded on from live batches. */
export interface TimelineState {
  jobId: string | null
  loading: boolean
  error: string | null
  /** Folded in place (it can hold 100,000 bars); `revision` says it changed. */
  model: Timeline | null
  revision: number
  /** Lane ids in tree order; recomputed only when lanes are added or re-parented. */
  laneOrder: string[]
  /** Live events that arrived while the fold loaded; applied above its last_seq once it is in. */
  pending: TraceEvent[]
}

export type CentreView = 'graph' | 'timeline'

export interface TimelineSlice {
  timeline: TimelineState
  centreView: CentreView
  /** The usage plot under the centre view: one switch for both views, off until the user turns it on. */
  plotOpen: boolean
  stackBy: StackBy
  plotMetric: UsageMetric
  /** The zoomed range in seconds from the job's start, shared by the Gantt and the plot; null: the whole job. */
  timeRange: { min: number; max: number } | null
  loadTimeline(jobId: string): Promise<void>
  showCentre(view: CentreView): void
  togglePlot(): void
  setStackBy(stackBy: StackBy): void
  setPlotMetric(metric: UsageMetric): void
  setTimeRange(range: { min: number; max: number } | null): void
}

export interface ReplayState {
  jobId: string
  loading: boolean
  error: string | null
  cursor: ReplayCursor | null
  startMs: number
  endMs: number
  /** The time shown, epoch ms. */
  atMs: number
  playing: boolean
  /** Trace seconds per wall-clock second. */
  speed: number
}

export interface ReplaySlice {
  /** A finished job played back: while set, the graph shows `cursor.tree` instead of the live tree. */
  replay: ReplayState | null
  startReplay(): Promise<void>
  stopReplay(): void
  seekReplay(ms: number): void
  setReplayPlaying(playing: boolean): void
  setReplaySpeed(speed: number): void
}

/** The Changes views' shared state (changes-slice.ts): the nodes' badges and what asks for a Changes view or a revert. */
export interface ChangesSlice {
  /** Changed files per agent of the tree's job (its own changes), and of the whole job; `revision` goes up with every `file.change` of that job. */
  changeCounts: { jobId: string | null; byAgent: Record<string, number>; jobFiles: number; revision: number }
  loadChangeCounts(jobId: string): Promise<void>
  /** The job's whole Changes panel (the toolbar's Changes). */
  jobChangesOpen: boolean
  openJobChanges(open: boolean): void
  /** The node menu's Revert changes… dialog, on this agent. */
  revertDialog: { agentId: string } | null
  openRevert(agentId: string | null): void
  /** An agent's inspector asked to show its Changes tab (at `path`'s diff); `nonce` changes on every ask. */
  changesFocus: { agentId: string; path: string | null; nonce: number } | null
  showChanges(agentId: string, path?: string): void
}

export type ArborState = JobsSlice &
  TreeSlice &
  InspectorSlice &
  ControlsSlice &
  UiSlice &
  LiveSlice &
  ProjectsSlice &
  AttentionSlice &
  CommandsSlice &
  FormsSlice &
  TimelineSlice &
  ReplaySlice &
  ChangesSlice

export type SliceCreator<Slice> = StateCreator<ArborState, [], [], Slice>
