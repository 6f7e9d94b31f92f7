import type { StateCreator } from 'zustand'
import { splitFieldErrors } from '../../../src-main/core/api/methods'
import type { PendingApproval, ProjectInfo } from '../../../src-main/core/api/contract'
import type { TraceEvent } from '../../../src-main/core/trace/events'
import type { Job } from '../../../src-main/core/trace/model'
import type { InspectorState } from './inspector-events'
import type { TreeState } from './tree-state'

export interface JobsSlice {
  jobs: Record<string, Job>
  jobOrder: string[]
  jobsLoaded: boolean
  selectedJobId: string | null
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
}

export interface ControlsSlice {
  setSpawnPaused(jobId: string, paused: boolean): Promise<void>
  setAllPaused(paused: boolean): Promise<void>
  setAutoApprove(jobId: string, value: boolean): Promise<void>
  killAgent(agentId: string): Promise<void>
  cancelSpawn(agentId: string): Promise<void>
  decideApproval(approval: PendingApproval, decision: 'approved' | 'denied'): Promise<void>
  exportJob(jobId: string): Promise<void>
  openProject(path: string): Promise<void>
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

export type ArborState = JobsSlice & TreeSlice & InspectorSlice & ControlsSlice & UiSlice & LiveSlice

export type SliceCreator<Slice> = StateCreator<ArborState, [], [], Slice>

/** An error's message for the user, without the field details a refused form carries (see errorFields). */
export const errorText = (error: unknown): string => splitFieldErrors(error instanceof Error ? error.message : String(error)).message

/** The field-by-field messages of a refused form (startJob), if the error carries them. */
export const errorFields = (error: unknown): Record<string, string> | null =>
  splitFieldErrors(error instanceof Error ? error.message : String(error)).fields
