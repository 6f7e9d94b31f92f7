import { z } from 'zod'
import type { TraceEvent } from '../trace/events'
import type { AgentNode, Job } from '../trace/model'

/**
 * The one API between a UI (Electron renderer over IPC, or a browser over the `serve`
 * WebSocket) and the engine. Every method's input is a zod schema; the dispatcher parses
 * each request with it before any handler runs.
 */
const id = z.string().min(1).max(100)

export const apiContract = {
  getState: z.object({}).strict(),
  openProject: z.object({ path: z.string().min(1).max(4096) }).strict(),
  listJobs: z.object({}).strict(),
  startJob: z
    .object({
      kind: z.enum(['demo', 'scripted']),
      task: z.string().max(20_000).optional(),
      spawn_paused: z.boolean().optional(),
      auto_approve: z.boolean().optional(),
      max_depth: z.number().int().min(0).max(8).optional(),
      max_concurrent_children: z.number().int().min(1).max(64).optional(),
    })
    .strict(),
  getTree: z.object({ job_id: id }).strict(),
  getEvents: z
    .object({
      agent_id: id,
      after_seq: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(5000).optional(),
    })
    .strict(),
  setSpawnPaused: z.object({ job_id: id.nullable(), paused: z.boolean() }).strict(),
  killAgent: z.object({ agent_id: id }).strict(),
  cancelSpawn: z.object({ agent_id: id }).strict(),
  setAutoApprove: z.object({ job_id: id, value: z.boolean() }).strict(),
  decideApproval: z.object({ approval_id: id, decision: z.enum(['approved', 'denied']) }).strict(),
  exportJob: z
    .object({ job_id: id, path: z.string().min(1).max(4096).optional(), format: z.enum(['jsonl']).optional() })
    .strict(),
} as const

export type ApiMethod = keyof typeof apiContract
export type ApiInput<M extends ApiMethod> = z.infer<(typeof apiContract)[M]>

export interface ProjectInfo {
  path: string
  name: string
}

export interface PendingApproval {
  approval_id: string
  job_id: string
  agent_id: string
  tool: string
  command: string
  reason: string
}

export interface ApiOutputs {
  getState: { project: ProjectInfo | null; all_paused: boolean }
  openProject: { project: ProjectInfo }
  listJobs: { jobs: Job[] }
  startJob: { job_id: string }
  /** `last_seq`: the newest event the snapshot includes; apply live events after it. */
  getTree: { job: Job; agents: AgentNode[]; last_seq: number; approvals: PendingApproval[] }
  getEvents: { events: TraceEvent[] }
  setSpawnPaused: { paused: boolean }
  killAgent: { killed: string[] }
  cancelSpawn: { cancelled: boolean }
  setAutoApprove: { value: boolean }
  decideApproval: { decided: boolean }
  /** `path` is null when the user dismissed a save dialog. */
  exportJob: { path: string | null; lines: number }
}

export type ApiHandlers = { [M in ApiMethod]: (input: ApiInput<M>) => Promise<ApiOutputs[M]> }

/** What a subscriber receives: stored events, after their transaction committed. */
export interface ApiNotification {
  kind: 'events'
  events: TraceEvent[]
}

/** Errors crossing a process, IPC or WebSocket boundary travel as plain data. */
export interface ApiError {
  code: 'invalid_request' | 'unknown_method' | 'not_found' | 'conflict' | 'internal'
  message: string
}
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError }

/** The object a UI holds: one method per contract entry, plus a subscription. */
export type ArborApi = ApiHandlers & {
  subscribe(listener: (notification: ApiNotification) => void): () => void
}
