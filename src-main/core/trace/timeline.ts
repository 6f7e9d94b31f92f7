import type { TraceEvent } from './events'

/**
 * A job's timeline: one lane per agent, its model calls, tool calls and waits as bars, the
 * spawn links between lanes and one usage point per model call. Folded from the trace in seq
 * order, incrementally: main folds a stored job for `getTimeline`, the renderer folds live
 * batches into that same value, so both always agree. Plain JSON (no Maps), because it crosses
 * IPC and the WebSocket; bounded: it keeps no message, argument or output text.
 *
 * Times are epoch milliseconds. `llm.call` is recorded when the call returns, so its bar is
 * `[ts - duration_ms, ts]`; a tool call runs from `tool.call` to the `tool.result` of its call id.
 */

/**
 * `queued`/`held`: a spawn waiting for a slot or for spawning to resume; `approval`: a command
 * waiting for a decision; `rate_limit`/`budget`: a live agent whose next call waits for a
 * provider's limit or for a cap to be raised (`agent.wait`).
 */
export type BarKind = 'model' | 'tool' | 'queued' | 'held' | 'approval' | 'rate_limit' | 'budget'
export const waitKinds: readonly BarKind[] = ['queued', 'held', 'approval', 'rate_limit', 'budget']

export interface TimelineBar {
  kind: BarKind
  start_ms: number
  /** Null while it is still open (a running tool call, a pending approval). */
  end_ms: number | null
  /** The event that opens the inspector: the call, the request, the queued or held record. */
  seq: number
  /** Whose trace holds that event: the lane's agent, or its parent for a queued or held spawn. */
  agent_id: string
  /** The model, the tool, the command waiting, or why the spawn waits. */
  label: string
  /** A failed tool call, a denied approval, an aborted model call. */
  failed: boolean
}

export interface TimelineLane {
  agent_id: string
  parent_id: string | null
  depth: number
  label: string
  profile: string
  /** When the lane begins: its agent's first queued, held or start event. */
  first_ms: number
  start_ms: number | null
  end_ms: number | null
  /** `waiting`, `running`, then the agent.end status. */
  status: string
}

/** From the parent's lane, at its `task` call, to where the child's lane begins. */
export interface SpawnLink {
  parent_id: string
  child_id: string
  at_ms: number
  seq: number
}

export interface UsagePoint {
  ms: number
  agent_id: string
  /** The model the call went to: what a price is added for when its cost is null. */
  model: string
  tokens: number
  /** Null when the model has no price: the call's cost is unknown, not zero. */
  cost_usd: number | null
}

export interface Timeline {
  job_id: string | null
  /** The earliest time seen (the job.start of a whole trace). */
  start_ms: number | null
  end_ms: number | null
  /** The newest time seen: where open bars end on a finished or imported job. */
  last_ms: number
  last_seq: number
  lanes: Record<string, TimelineLane>
  /** Lane ids in the order they appeared (spawn order). */
  lane_order: string[]
  /** Bars per lane id, in the order they began. */
  bars: Record<string, TimelineBar[]>
  links: SpawnLink[]
  points: UsagePoint[]
  /** Fold state: each lane's open bars, by key (`wait`, `hold`, `tool\tcall id`, `approval\tid`) → bar index. */
  open: Record<string, Record<string, number>>
  /** Open `task` calls by `agent\tcall id` → [ms, seq]: a spawn link starts where the parent asked. */
  task_calls: Record<string, [number, number]>
  /** Where each requested child's link starts, until its lane appears: child id → [ms, seq]. */
  spawn_origins: Record<string, [number, number]>
}

export const emptyTimeline = (jobId: string | null = null): Timeline => ({
  job_id: jobId,
  start_ms: null,
  end_ms: null,
  last_ms: 0,
  last_seq: 0,
  lanes: {},
  lane_order: [],
  bars: {},
  links: [],
  points: [],
  open: {},
  task_calls: {},
  spawn_origins: {},
})

/**
 * Folds events into the timeline in place (it can hold 100,000 bars: copying it per live batch
 * would cost more than the batch) and says whether lanes were added or re-parented, the only
 * change that reorders lanes. Events at or below `last_seq`, or of another job, are skipped.
 */
export function foldTimeline(timeline: Timeline, events: readonly TraceEvent[]): { lanesChanged: boolean } {
  let lanesChanged = false
  for (const event of events) {
    if (event.seq <= timeline.last_seq) continue
    if (timeline.job_id !== null && event.job_id !== timeline.job_id) continue
    timeline.job_id = event.job_id
    timeline.last_seq = event.seq
    const ms = Date.parse(event.ts)
    if (!Number.isFinite(ms)) continue
    // ts may step back slightly between agents: the timeline starts at the earliest.
    timeline.start_ms = timeline.start_ms === null ? ms : Math.min(timeline.start_ms, ms)
    timeline.last_ms = Math.max(timeline.last_ms, ms)
    if (foldEvent(timeline, event, ms)) lanesChanged = true
  }
  return { lanesChanged }
}

function foldEvent(timeline: Timeline, event: TraceEvent, ms: number): boolean {
  const agentId = event.agent_id
  switch (event.type) {
    case 'job.end':
      timeline.end_ms = ms
      closeAll(timeline, ms)
      return false
    case 'subagent.queued':
    case 'subagent.held': {
      if (!agentId) return false
      const childId = event.data.child_agent_id
      const added = ensureLane(timeline, childId, ms, {
        parent_id: agentId,
        depth: (event.depth ?? 0) + 1,
        label: event.data.description || event.data.profile,
        profile: event.data.profile,
      })
      if (added) addLink(timeline, agentId, childId, ms, event.seq)
      const lane = timeline.lanes[childId]!
      if (lane.end_ms !== null) {
        // Held or queued again: an interrupted job resumed, the sweep's end no longer stands.
        lane.end_ms = null
        lane.status = 'waiting'
      }
      closeBar(timeline, childId, 'wait', ms)
      openBar(timeline, childId, 'wait', {
        kind: event.type === 'subagent.held' ? 'held' : 'queued',
        start_ms: ms,
        end_ms: null,
        seq: event.seq,
        agent_id: agentId,
        label: event.data.reason ?? (event.type === 'subagent.held' ? 'spawning is paused' : 'waiting for a slot'),
        failed: false,
      })
      return added
    }
    case 'subagent.request': {
      const task = timeline.task_calls[`${agentId}\t${event.data.call_id}`]
      timeline.spawn_origins[event.data.child_agent_id] = task ?? [ms, event.seq]
      return false
    }
    case 'subagent.start':
      closeBar(timeline, event.data.child_agent_id, 'wait', ms)
      return false
    case 'agent.start': {
      if (!agentId) return false
      const known = timeline.lanes[agentId]
      const added = ensureLane(timeline, agentId, ms, {
        parent_id: event.parent_id,
        depth: event.depth ?? 0,
        label: event.data.label,
        profile: event.data.profile,
      })
      const lane = timeline.lanes[agentId]!
      const reparented = known !== undefined && known.parent_id !== event.parent_id
      Object.assign(lane, {
        parent_id: event.parent_id,
        depth: event.depth ?? lane.depth,
        label: event.data.label || lane.label,
        profile: event.data.profile || lane.profile,
      })
      lane.start_ms = ms
      lane.status = 'running'
      closeBar(timeline, agentId, 'wait', ms)
      if (added && event.parent_id) addLink(timeline, event.parent_id, agentId, ms, event.seq)
      return added || reparented
    }
    case 'agent.end': {
      const lane = agentId ? timeline.lanes[agentId] : undefined
      if (!lane || !agentId) return false
      lane.end_ms = ms
      lane.status = event.data.status
      closeLane(timeline, agentId, ms)
      return false
    }
    case 'control':
      // An interrupted job resumed: it runs to its next job.end.
      if (event.data.action === 'resume_job') timeline.end_ms = null
      return false
    case 'agent.restart':
    case 'agent.resume': {
      // After a crash the lane just goes on; after an interruption it had been ended by the sweep.
      if (event.type === 'agent.restart' && event.data.cause !== 'interrupted') return false
      // A follow-up or a resume: the lane runs again to its next end, and so does the job.
      const lane = agentId ? timeline.lanes[agentId] : undefined
      if (!lane) return false
      lane.end_ms = null
      lane.status = 'running'
      timeline.end_ms = null
      return false
    }
    case 'llm.call': {
      if (!agentId || !timeline.lanes[agentId]) return false
      const duration = typeof event.data.duration_ms === 'number' && event.data.duration_ms > 0 ? event.data.duration_ms : 0
      addBar(timeline, agentId, {
        kind: 'model',
        start_ms: ms - duration,
        end_ms: ms,
        seq: event.seq,
        agent_id: agentId,
        label: event.data.model,
        failed: typeof event.data.aborted === 'string',
      })
      const usage = event.data.usage
      timeline.points.push({
        ms,
        agent_id: agentId,
        model: event.data.model,
        tokens: (usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0),
        cost_usd: typeof event.data.cost_usd === 'number' && Number.isFinite(event.data.cost_usd) ? event.data.cost_usd : null,
      })
      return false
    }
    case 'tool.call': {
      if (!agentId || !timeline.lanes[agentId]) return false
      if (event.data.name === 'task') timeline.task_calls[`${agentId}\t${event.data.call_id}`] = [ms, event.seq]
      openBar(timeline, agentId, `tool\t${event.data.call_id}`, {
        kind: 'tool',
        start_ms: ms,
        end_ms: null,
        seq: event.seq,
        agent_id: agentId,
        label: event.data.name,
        failed: false,
      })
      return false
    }
    case 'tool.result': {
      if (!agentId) return false
      const bar = closeBar(timeline, agentId, `tool\t${event.data.call_id}`, ms)
      if (bar && event.data.ok === false) bar.failed = true
      delete timeline.task_calls[`${agentId}\t${event.data.call_id}`]
      return false
    }
    case 'approval.request': {
      if (!agentId || !timeline.lanes[agentId]) return false
      openBar(timeline, agentId, `approval\t${event.data.approval_id}`, {
        kind: 'approval',
        start_ms: ms,
        end_ms: null,
        seq: event.seq,
        agent_id: agentId,
        label: event.data.command,
        failed: false,
      })
      return false
    }
    case 'agent.wait': {
      if (!agentId || !timeline.lanes[agentId]) return false
      const { phase, reason, message } = event.data
      // A rate limit's next tries are more starts of the same wait: one bar from the first to the end.
      if (phase === 'end') closeBar(timeline, agentId, 'hold', ms)
      else if (timeline.open[agentId]?.hold === undefined) {
        openBar(timeline, agentId, 'hold', {
          kind: reason === 'rate_limit' ? 'rate_limit' : 'budget',
          start_ms: ms,
          end_ms: null,
          seq: event.seq,
          agent_id: agentId,
          label: message || (reason === 'rate_limit' ? 'rate limited' : 'budget spent'),
          failed: false,
        })
      }
      return false
    }
    case 'approval.decision': {
      if (!agentId) return false
      const bar = closeBar(timeline, agentId, `approval\t${event.data.approval_id}`, ms)
      if (bar && event.data.decision === 'denied') bar.failed = true
      return false
    }
    default:
      return false
  }
}

function ensureLane(
  timeline: Timeline,
  agentId: string,
  ms: number,
  fields: Pick<TimelineLane, 'parent_id' | 'depth' | 'label' | 'profile'>,
): boolean {
  if (timeline.lanes[agentId]) return false
  timeline.lanes[agentId] = { agent_id: agentId, ...fields, first_ms: ms, start_ms: null, end_ms: null, status: 'waiting' }
  timeline.lane_order.push(agentId)
  timeline.bars[agentId] = []
  return true
}

function addLink(timeline: Timeline, parentId: string, childId: string, ms: number, seq: number): void {
  const origin = timeline.spawn_origins[childId]
  delete timeline.spawn_origins[childId]
  timeline.links.push({ parent_id: parentId, child_id: childId, at_ms: origin?.[0] ?? ms, seq: origin?.[1] ?? seq })
}

/** A bar's label is a name or the start of a command, never a whole one. */
export const barLabelLimit = 120

function addBar(timeline: Timeline, laneId: string, bar: TimelineBar): number {
  const bars = (timeline.bars[laneId] ??= [])
  if (bar.label.length > barLabelLimit) bar.label = `${bar.label.slice(0, barLabelLimit)}…`
  bars.push(bar)
  return bars.length - 1
}

function openBar(timeline: Timeline, laneId: string, key: string, bar: TimelineBar): void {
  ;(timeline.open[laneId] ??= {})[key] = addBar(timeline, laneId, bar)
}

function closeBar(timeline: Timeline, laneId: string, key: string, ms: number): TimelineBar | undefined {
  const open = timeline.open[laneId]
  const index = open?.[key]
  if (open === undefined || index === undefined) return undefined
  delete open[key]
  if (Object.keys(open).length === 0) delete timeline.open[laneId]
  const bar = timeline.bars[laneId]?.[index]
  if (bar) bar.end_ms = Math.max(bar.start_ms, ms)
  return bar
}

/** An agent ended: whatever it still had open (a call cut short, a request never decided) ends with it. */
function closeLane(timeline: Timeline, laneId: string, ms: number): void {
  for (const key of Object.keys(timeline.open[laneId] ?? {})) closeBar(timeline, laneId, key, ms)
}

function closeAll(timeline: Timeline, ms: number): void {
  for (const laneId of Object.keys(timeline.open)) closeLane(timeline, laneId, ms)
}

/** Lane ids depth-first, children in spawn order: the order the graph reads top-down, left to right. */
export function laneTreeOrder(timeline: Timeline): string[] {
  const children = new Map<string, string[]>()
  const roots: string[] = []
  for (const id of timeline.lane_order) {
    const parent = timeline.lanes[id]?.parent_id
    if (parent && timeline.lanes[parent]) {
      const siblings = children.get(parent)
      if (siblings) siblings.push(id)
      else children.set(parent, [id])
    } else {
      roots.push(id)
    }
  }
  const order: string[] = []
  const stack = [...roots].reverse()
  while (stack.length > 0) {
    const id = stack.pop()!
    order.push(id)
    const below = children.get(id)
    if (below) for (let index = below.length - 1; index >= 0; index--) stack.push(below[index]!)
  }
  return order
}

/** Where the timeline ends now: the job's end, else the newest event (or `now` while the job runs). */
export const timelineEnd = (timeline: Timeline, now?: number): number => timeline.end_ms ?? Math.max(timeline.last_ms, now ?? 0)
