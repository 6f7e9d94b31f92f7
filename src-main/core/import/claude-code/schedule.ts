import type { EventType } from '../../trace/events'
import type { AgentPlan } from './links'
import { modelOf, type StreamItem } from './agent-stream'

/** An event before it is checked against the trace schema and numbered (session.ts). */
export interface BuiltEvent {
  type: EventType
  ts: string
  job_id: string
  agent_id: string | null
  parent_id: string | null
  depth: number | null
  data: Record<string, unknown>
}

export interface AgentIdentity {
  id: string
  parentId: string | null
  depth: number
}

interface Stream {
  plan: AgentPlan
  items: StreamItem[]
  next: number
  started: boolean
}

/**
 * Interleaves the agents' streams into one trace order, as a live job would have written them:
 * always the earliest next step of the agents running, where a child runs only after its
 * parent's spawn and the parent's subagent.end waits for the child's agent.end. Parallel
 * children so keep their real overlap (and the timeline its lanes), and the reducers always see
 * a child's agent.start before anything of it.
 */
export function interleave(
  root: AgentPlan,
  streams: Map<AgentPlan, StreamItem[]>,
  identity: (plan: AgentPlan) => AgentIdentity,
  jobId: string,
): BuiltEvent[] {
  const state = new Map<AgentPlan, Stream>([...streams].map(([plan, items]) => [plan, { plan, items, next: 0, started: plan === root }]))
  const ended = new Set<AgentPlan>()
  const out: BuiltEvent[] = []
  const emit = (plan: AgentPlan, ts: string, type: EventType, data: Record<string, unknown>): void => {
    const { id, parentId, depth } = identity(plan)
    out.push({ type, ts, job_id: jobId, agent_id: id, parent_id: parentId, depth, data })
  }
  const spawnData = (child: AgentPlan) => ({
    call_id: child.spawn?.callId ?? null,
    child_agent_id: identity(child).id,
    profile: child.profile,
    description: child.label,
  })
  const blocked = (stream: Stream): boolean => {
    const item = stream.items[stream.next]
    return item?.kind === 'spawned' && !ended.has(item.child)
  }
  for (;;) {
    const runnable = [...state.values()].filter((stream) => stream.started && stream.next < stream.items.length)
    if (runnable.length === 0) break
    // Never stuck: were every stream waiting (a child that cannot end), the earliest goes on anyway.
    const ready = runnable.filter((stream) => !blocked(stream))
    const stream = earliest(ready.length > 0 ? ready : runnable)
    const item = stream.items[stream.next++]!
    const plan = stream.plan
    if (item.kind === 'event') {
      emit(plan, item.ts, item.type, item.data)
      if (item.type === 'agent.end') ended.add(plan)
    } else if (item.kind === 'spawn') {
      emit(plan, item.ts, 'subagent.request', { ...spawnData(item.child), task: item.child.task })
      emit(plan, item.ts, 'subagent.start', spawnData(item.child))
      const child = state.get(item.child)
      if (child) child.started = true
    } else {
      emit(plan, item.ts, 'subagent.end', {
        ...spawnData(item.child),
        envelope: envelopeOf(item.child, identity(item.child).id, streams.get(item.child)),
      })
    }
  }
  return out
}

/** The stream whose next step is earliest; on a tie the one listed first (parents before children). */
function earliest(streams: Stream[]): Stream {
  let best = streams[0]!
  for (const stream of streams.slice(1)) if (timeOf(stream) < timeOf(best)) best = stream
  return best
}

const timeOf = (stream: Stream): number => Date.parse(stream.items[stream.next]!.ts) || 0

/** What the parent's call returned, in the shape of Arbor's own task envelope. */
function envelopeOf(child: AgentPlan, agentId: string, items: StreamItem[] | undefined) {
  const end = items?.at(-1)
  const data = end?.kind === 'event' && end.type === 'agent.end' ? end.data : {}
  const usage = (data.usage ?? {}) as { input_tokens?: number; output_tokens?: number }
  const toolCalls = Object.values((data.tool_usage ?? {}) as Record<string, number>).reduce((sum, count) => sum + count, 0)
  return {
    status: child.outcome.status,
    profile: child.profile,
    agent_id: agentId,
    summary: typeof data.summary === 'string' ? data.summary : '',
    result: child.outcome.result,
    terminal_reason: child.outcome.terminalReason,
    stats: {
      steps: typeof data.steps === 'number' ? data.steps : 0,
      tool_calls: toolCalls,
      input_tokens: usage.input_tokens ?? 0,
      output_tokens: usage.output_tokens ?? 0,
      cost_usd: typeof data.cost_usd === 'number' ? data.cost_usd : null,
      model: modelOf(child),
      duration_ms: typeof data.duration_ms === 'number' ? data.duration_ms : 0,
    },
  }
}
