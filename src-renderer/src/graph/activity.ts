import type { AgentNode } from '@core/trace/model'
import { stallAfterMs } from '../util/clock'

/** What a node's activity row says its agent is doing, and how it is drawn. */
export interface Activity {
  text: string
  kind: 'tool' | 'model' | 'waiting' | 'unresponsive' | 'state'
}

/** What the row reads besides the node: whether its process went silent (agent.health), and since when. */
export interface ActivityContext {
  /** The clock; null in a replay, whose events are long past: no durations then. */
  now: number | null
  /** When its process last said anything, while it is unresponsive; null when it is not. */
  unresponsiveSince: string | null
}

/**
 * Tells a live agent's states apart: working in a tool (which, for how long), in a model call
 * (waiting for or streaming the model's reply), waiting for the user's approval, queued for a
 * slot of its parent, or unresponsive (its process silent past the threshold). Null for every
 * other state: the node shows its status label. Durations are counted from its last event, which
 * is when its tool call or model call began.
 */
export function liveActivity(agent: AgentNode, context: ActivityContext): Activity | null {
  const { now } = context
  const since = (ts: string): string => (now === null ? '' : ` · ${seconds(now - Date.parse(ts))}`)
  const quiet = since(agent.last_event_at)
  if (context.unresponsiveSince !== null && agent.ended_at === null) {
    return {
      text: `✕ unresponsive${now === null ? '' : ` · silent ${seconds(now - Date.parse(context.unresponsiveSince))}`}`,
      kind: 'unresponsive',
    }
  }
  // A switch on the status as text: statuses still to come have their case here.
  switch (agent.status as string) {
    case 'waiting_approval':
      // Before its tool: the command waits for the user, not for the tool.
      return { text: '⚠ waiting for you', kind: 'waiting' }
    case 'queued':
      return { text: 'waiting for a slot', kind: 'waiting' }
    // Hook for the wait statuses (agent.wait): say what it waits for, e.g. "waiting: rate limit · 20 s".
    case 'rate_limited':
      return { text: `waiting: rate limit${quiet}`, kind: 'waiting' }
    case 'paused':
      return { text: `paused: budget${quiet}`, kind: 'waiting' }
    case 'running':
      return agent.current_tool ? { text: `▸ ${agent.current_tool}${quiet}`, kind: 'tool' } : { text: `model call${quiet}`, kind: 'model' }
    default:
      return null
  }
}

/**
 * The stall flag: a running agent that is neither in a tool (a long command is healthy while its
 * process beats) nor unresponsive (which has its own red state) and has had no event for 60 s:
 * a model call that has not answered for a minute, say.
 */
export function isStalled(agent: AgentNode | undefined, activeChildren: number, context: ActivityContext): boolean {
  return (
    agent !== undefined &&
    agent.status === 'running' &&
    agent.current_tool === null &&
    context.unresponsiveSince === null &&
    activeChildren === 0 &&
    context.now !== null &&
    context.now - Date.parse(agent.last_event_at) > stallAfterMs
  )
}

function seconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}
