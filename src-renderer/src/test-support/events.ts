import type { EventType, TraceEvent } from '@core/trace/events'

/**
 * Builds trace events with increasing seq and a fixed clock, for reducer tests. The data is taken
 * as given (reducer tests pass only the keys they exercise), hence the assertion.
 */
export function eventFactory(jobId = 'job-1') {
  let seq = 0
  return (
    type: EventType,
    agentId: string | null,
    data: Record<string, unknown> = {},
    extra: { parent_id?: string | null; depth?: number; seq?: number } = {},
  ): TraceEvent => {
    seq = extra.seq ?? seq + 1
    return {
      type,
      seq,
      ts: new Date(Date.UTC(2025, 0, 1, 12, 0, seq)).toISOString(),
      job_id: jobId,
      agent_id: agentId,
      parent_id: extra.parent_id ?? null,
      depth: extra.depth ?? 0,
      data,
    } as TraceEvent
  }
}
