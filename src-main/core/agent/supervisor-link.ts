import { randomUUID } from 'node:crypto'
import type { EventType } from '../trace/events'
import type { AgentOutcome, McpResult, MergeResult, TaskRequest, ToAgent, ToSupervisor } from '../protocol/messages'
import { RemoteModel } from './remote-model'
import type { ApprovalOutcome, ApprovalRequest, BackgroundTasks, SpawnOutcome } from './tools/types'
import { ArborError } from '../errors'
import { BackgroundChildren } from './background-children'

/** What the loop needs of the supervisor: a place for trace events, children and approvals. */
export interface AgentLink {
  /** `contents`: the file versions a `file.change` names, stored with it (protocol/file-change.ts). */
  event(type: EventType, data: Record<string, unknown>, contents?: readonly Uint8Array[]): void
  /** Sends a `spawn` request and resolves with the matching `spawn_result` (or `spawn_started`, for a background one). */
  spawn(callId: string, request: TaskRequest, signal?: AbortSignal): Promise<SpawnOutcome>
  /** Sends a `resume_child` request and resolves with the matching `spawn_result`. */
  resumeChild?(callId: string, agentId: string, prompt: string, signal?: AbortSignal): Promise<SpawnOutcome>
  /** Sends a `merge_branch` request and resolves with the matching `merge_result`. */
  mergeBranch?(callId: string, agentId: string): Promise<MergeResult>
  /**
   * Sends an `approval` request and resolves with the matching `approval_result`; rejects when
   * `signal` aborts first. The supervisor records the approval.request / approval.decision events.
   */
  requestApproval(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalOutcome>
  /** Tells the supervisor about a process group a tool started or saw end. */
  trackProcess(pgid: number, running: boolean): void
  /** Tells the supervisor a tracked command's window opened or closed (the `command` message). */
  commandWindow?(callId: string, running: boolean): void
  /** Sends an `mcp_call` and resolves with its `mcp_result` (an error result when `signal` aborts first). */
  callMcp?(callId: string, server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpResult>
  /** The user's messages received since the last call, in the order sent (the loop delivers them at a step boundary). */
  takeSteers?(): SteerMessage[]
  /** The agent's background children and their envelopes (`task` with `background: true`). */
  background?: BackgroundTasks
  /** The user's request to wrap up, once: null before it came and after it was taken. */
  takeWrapUp?(): WrapUpRequest | null
}

/** The user asked this agent (or an ancestor) to finish now and report what it has. */
export interface WrapUpRequest {
  wrap_up_id: string
  requested_at: string
  steps_allowed: number
}

/** A message the user sent this agent while it runs. */
export interface SteerMessage {
  steer_id: string
  text: string
  sent_at: string
}

/** The agent was stopped while an approval was pending. */
export class ApprovalAbortedError extends ArborError<'approval_aborted'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.ApprovalAbortedError')

  constructor(readonly approvalId: string) {
    super('approval_aborted', 'the agent was stopped while waiting for approval')
    this.name = 'ApprovalAbortedError'
  }
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

/**
 * The agent's side of the protocol over any `send`: stamps events with the clock and matches
 * each `spawn_result` to the `spawn` that asked for it, and each `approval_result` to its
 * `approval`, so several spawns and approvals can be in flight.
 */
export class SupervisorLink implements AgentLink {
  private readonly pending = new Map<string, { settle: (result: SpawnOutcome) => void; description: string }>()
  readonly background = new BackgroundChildren()
  private readonly approvals = new Map<string, (outcome: ApprovalOutcome) => void>()
  private readonly merges = new Map<string, (result: MergeResult) => void>()
  private readonly mcpCalls = new Map<string, (result: McpResult) => void>()
  private model: RemoteModel | null = null
  private steers: SteerMessage[] = []
  private wrapUp: WrapUpRequest | null = null
  private wrapUpTaken = false

  /**
   * @param approvalIds makes approval ids; they must be unique within the job (the supervisor
   * keeps a job's pending approvals by id), hence random by default.
   */
  constructor(
    private readonly send: (message: ToSupervisor) => void,
    private readonly clock: Clock,
    private readonly approvalIds: () => string = () => `approval_${randomUUID()}`,
  ) {}

  event(type: EventType, data: Record<string, unknown>, contents?: readonly Uint8Array[]): void {
    const ts = new Date(this.clock.now()).toISOString()
    this.send({
      type: 'event',
      event_type: type,
      ts,
      data,
      ...(contents?.length ? { contents: contents.map((bytes) => Buffer.from(bytes).toString('base64')) } : {}),
    })
  }

  spawn(callId: string, request: TaskRequest, signal?: AbortSignal): Promise<SpawnOutcome> {
    return this.awaitChild(callId, { type: 'spawn', call_id: callId, request }, request.description, signal)
  }

  resumeChild(callId: string, agentId: string, prompt: string, signal?: AbortSignal): Promise<SpawnOutcome> {
    return this.awaitChild(callId, { type: 'resume_child', call_id: callId, agent_id: agentId, prompt }, agentId, signal)
  }

  mergeBranch(callId: string, agentId: string): Promise<MergeResult> {
    if (this.merges.has(callId)) return Promise.resolve({ error: `call id ${callId} is already waiting for a merge` })
    return new Promise((resolve) => {
      this.merges.set(callId, resolve)
      this.send({ type: 'merge_branch', call_id: callId, agent_id: agentId })
    })
  }

  /** Sends `message` for a child and resolves with the `spawn_result` (or `spawn_started`) of `callId`, or when `signal` aborts. */
  private awaitChild(callId: string, message: ToSupervisor, description: string, signal?: AbortSignal): Promise<SpawnOutcome> {
    if (this.pending.has(callId)) return Promise.resolve({ ok: false, error: `call id ${callId} is already waiting for a child` })
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.pending.delete(callId)
        resolve({ ok: false, error: 'the agent was stopped while waiting for the child' })
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      const settle = (result: SpawnOutcome): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve(result)
      }
      this.pending.set(callId, { settle, description })
      this.send(message)
    })
  }

  requestApproval(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalOutcome> {
    const approvalId = this.approvalIds()
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ApprovalAbortedError(approvalId))
      const onAbort = (): void => {
        this.approvals.delete(approvalId)
        reject(new ApprovalAbortedError(approvalId))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.approvals.set(approvalId, (outcome) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(outcome)
      })
      this.send({ type: 'approval', approval_id: approvalId, tool: request.tool, command: request.command, reason: request.reason })
    })
  }

  callMcp(callId: string, server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpResult> {
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.mcpCalls.delete(callId)
        resolve({ ok: false, error: 'the agent was stopped during the call' })
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      this.mcpCalls.set(callId, (result) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(result)
      })
      this.send({ type: 'mcp_call', call_id: callId, server, tool, arguments: args })
    })
  }

  /** The agent's model: its calls go through this link to the supervisor, which makes them. */
  remoteModel(kind: string, model: string): RemoteModel {
    this.model = new RemoteModel(kind, model, this.send)
    return this.model
  }

  /** Handles a parsed message other than `start`; anything unexpected becomes an `error` event. */
  receive(message: Exclude<ToAgent, { type: 'start' }>): void {
    switch (message.type) {
      case 'model_event':
      case 'model_error':
        // A call the agent gave up on (aborted) may still get its last events: nothing to do.
        this.model?.receive(message)
        return
      case 'spawn_result': {
        const pending = this.pending.get(message.call_id)
        if (!pending) return this.event('error', { message: `spawn_result for unknown call ${message.call_id}` })
        this.pending.delete(message.call_id)
        pending.settle(message.result)
        return
      }
      case 'spawn_started': {
        const pending = this.pending.get(message.call_id)
        if (!pending) return this.event('error', { message: `spawn_started for unknown call ${message.call_id}` })
        this.pending.delete(message.call_id)
        this.background.started(message.agent_id, pending.description)
        pending.settle({ ok: true, started: { agent_id: message.agent_id, status: message.status } })
        return
      }
      case 'merge_result': {
        const settle = this.merges.get(message.call_id)
        if (!settle) return this.event('error', { message: `merge_result for unknown call ${message.call_id}` })
        this.merges.delete(message.call_id)
        settle(message.result)
        return
      }
      case 'background_end':
        if (!this.background.ended(message.envelope)) {
          this.event('error', { message: `background_end for ${message.agent_id}, not a running background child of this agent` })
        }
        return
      case 'child_result':
        this.background.delivered(message.description, message.envelope)
        return
      case 'steer':
        this.steers.push({ steer_id: message.steer_id, text: message.text, sent_at: message.sent_at })
        return
      case 'wrap_up':
        // One wrap-up an agent's life: a second request changes nothing.
        if (!this.wrapUp && !this.wrapUpTaken) {
          this.wrapUp = { wrap_up_id: message.wrap_up_id, requested_at: message.requested_at, steps_allowed: message.steps_allowed }
        }
        return
      case 'mcp_result': {
        const settle = this.mcpCalls.get(message.call_id)
        if (!settle) return
        this.mcpCalls.delete(message.call_id)
        settle(message.result)
        return
      }
      case 'approval_result': {
        const settle = this.approvals.get(message.approval_id)
        if (!settle) return this.event('error', { message: `approval_result for unknown approval ${message.approval_id}` })
        this.approvals.delete(message.approval_id)
        // `by` is read when the protocol carries it (the supervisor knows who decided).
        const by = 'by' in message && typeof message.by === 'string' ? message.by : null
        settle({ decision: message.decision, by, ...(message.message ? { message: message.message } : {}) })
        return
      }
    }
  }

  takeSteers(): SteerMessage[] {
    const taken = this.steers
    this.steers = []
    return taken
  }

  takeWrapUp(): WrapUpRequest | null {
    const taken = this.wrapUp
    if (taken) this.wrapUpTaken = true
    this.wrapUp = null
    return taken
  }

  trackProcess(pgid: number, running: boolean): void {
    this.send({ type: 'process', pgid, running })
  }

  commandWindow(callId: string, running: boolean): void {
    this.send({ type: 'command', call_id: callId, running })
  }

  done(outcome: AgentOutcome): void {
    this.send({ type: 'done', outcome })
  }
}
