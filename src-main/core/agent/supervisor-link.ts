import type { EventType } from '../trace/events'
import type { AgentOutcome, TaskRequest, ToAgent, ToSupervisor } from '../supervisor/protocol'
import type { SpawnResult } from './tools/types'

/** What the loop needs of the supervisor: a place for trace events, and children. */
export interface AgentLink {
  event(type: EventType, data: Record<string, unknown>): void
  /** Sends a `spawn` request and resolves with the matching `spawn_result`. */
  spawn(callId: string, request: TaskRequest, signal?: AbortSignal): Promise<SpawnResult>
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

/**
 * The agent's side of the protocol over any `send`: stamps events with the clock and matches
 * each `spawn_result` to the `spawn` that asked for it, so several spawns can be in flight.
 */
export class SupervisorLink implements AgentLink {
  private readonly pending = new Map<string, (result: SpawnResult) => void>()

  constructor(
    private readonly send: (message: ToSupervisor) => void,
    private readonly clock: Clock,
  ) {}

  event(type: EventType, data: Record<string, unknown>): void {
    this.send({ type: 'event', event_type: type, ts: new Date(this.clock.now()).toISOString(), data })
  }

  spawn(callId: string, request: TaskRequest, signal?: AbortSignal): Promise<SpawnResult> {
    if (this.pending.has(callId)) return Promise.resolve({ ok: false, error: `call id ${callId} is already waiting for a child` })
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.pending.delete(callId)
        resolve({ ok: false, error: 'the agent was stopped while waiting for the child' })
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pending.set(callId, (result) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(result)
      })
      this.send({ type: 'spawn', call_id: callId, request })
    })
  }

  /** Handles a parsed message other than `start`; anything unexpected becomes an `error` event. */
  receive(message: Exclude<ToAgent, { type: 'start' }>): void {
    switch (message.type) {
      case 'spawn_result': {
        const settle = this.pending.get(message.call_id)
        if (!settle) return this.event('error', { message: `spawn_result for unknown call ${message.call_id}` })
        this.pending.delete(message.call_id)
        settle(message.result)
        return
      }
      case 'approval_result':
        return this.event('error', { message: `approval_result ${message.approval_id} but no approval was asked` })
    }
  }

  done(outcome: AgentOutcome): void {
    this.send({ type: 'done', outcome })
  }
}
