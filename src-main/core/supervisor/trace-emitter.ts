import { newEvent, type EventData, type EventType } from '../trace/events'
import type { JobRuntime, AgentRuntime, TraceSink } from './runtime'

/** Stamps what the supervisor learns or decides as trace events: job, agent, parent, depth, time. */
export class TraceEmitter {
  constructor(
    private readonly sink: TraceSink,
    private readonly now: () => Date,
  ) {}

  /** An event on an agent; `ts` keeps the time the agent process reported; `contents`: the file versions a `file.change` names. */
  agent<T extends EventType>(agent: AgentRuntime, type: T, data: EventData<T>, ts?: string, contents?: readonly Uint8Array[]): void {
    const place = {
      ts: ts ?? this.now().toISOString(),
      job_id: agent.job.id,
      agent_id: agent.id,
      parent_id: agent.parent?.id ?? null,
      depth: agent.depth,
    }
    if (contents?.length) this.sink.append(newEvent(type, place, data), contents)
    else this.sink.append(newEvent(type, place, data))
  }

  /** A job-level event (no agent). */
  job<T extends EventType>(job: Pick<JobRuntime, 'id'>, type: T, data: EventData<T>): void {
    this.sink.append(newEvent(type, { ts: this.now().toISOString(), job_id: job.id, agent_id: null, parent_id: null, depth: null }, data))
  }
}
