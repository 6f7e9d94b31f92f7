import type { ApiNotification } from '../core/api/contract'
import type { EventData, TraceEvent } from '../core/trace/events'
import { groupDigits } from '../core/digits'
import { jobOutcome } from '../core/trace/statuses'

/** Prints the tree as it grows: one line per agent start, spawn decision and end. */
export function printTree(write: (line: string) => void): (notification: ApiNotification) => void {
  const labels = new Map<string, string>()
  const line = (event: TraceEvent, depth: number, text: string): void => write(`${'  '.repeat(depth)}${text}`)
  return ({ events }) => {
    for (const event of events) {
      const depth = event.depth ?? 0
      switch (event.type) {
        case 'job.start':
          write(`job ${event.job_id}: ${event.data.task}`)
          break
        case 'agent.start': {
          const { label, profile, model } = event.data
          labels.set(event.agent_id ?? '', label)
          line(event, depth, `▶ ${label} [${profile}, ${model ?? 'no model'}] started`)
          break
        }
        case 'subagent.held':
          line(event, depth + 1, `… ${event.data.description} held (${event.data.reason ?? 'spawning paused'})`)
          break
        case 'subagent.queued':
          line(event, depth + 1, `… ${event.data.description} queued`)
          break
        case 'subagent.denied':
          line(event, depth + 1, `✕ ${event.data.description} denied: ${event.data.reason}`)
          break
        case 'agent.end': {
          const { usage, cost_usd, status, terminal_reason, steps } = event.data
          const tokens = `, ${usage.input_tokens + usage.output_tokens} tokens`
          const cost = cost_usd !== null ? `, ${formatCost(cost_usd)}` : ''
          line(
            event,
            depth,
            `■ ${labels.get(event.agent_id ?? '') ?? 'agent'} ${status} (${terminal_reason}, ${steps} steps${tokens}${cost})`,
          )
          break
        }
        case 'agent.resume': {
          // A job of an earlier session (run --continue) has no agent.start here: the resume names the agent.
          const label = event.data.label ?? labels.get(event.agent_id ?? '') ?? 'agent'
          labels.set(event.agent_id ?? '', label)
          line(
            event,
            depth,
            `↻ ${label} ${event.data.by === 'user' ? 'followed up' : 'resumed by its parent'}: ${oneLine(event.data.text)}`,
          )
          break
        }
        case 'agent.restart': {
          // A resumed job's agents had their agent.start in the earlier process: the restart names them.
          const label = event.data.label ?? labels.get(event.agent_id ?? '') ?? 'agent'
          labels.set(event.agent_id ?? '', label)
          const why =
            event.data.cause === 'interrupted'
              ? `goes on after the job was interrupted (from step ${event.data.from_step})`
              : event.data.cause === 'user'
                ? 'restarted by the user in a new process'
                : `restarted after its process crashed (restart ${event.data.restart} of ${event.data.restarts_allowed})`
          line(event, depth, `↻ ${label} ${why}`)
          break
        }
        case 'agent.health': {
          const label = labels.get(event.agent_id ?? '') ?? 'agent'
          const seconds = Math.round(event.data.silent_ms / 1000)
          const what =
            event.data.state === 'unresponsive'
              ? `⚠ ${label} unresponsive: its process said nothing for ${seconds} s`
              : `✓ ${label} responsive again`
          line(event, depth, what)
          break
        }
        case 'agent.wait': {
          const label = labels.get(event.agent_id ?? '') ?? 'agent'
          const { data } = event
          // A rate limit's later tries are in the trace; the terminal says once that it waits.
          if (data.phase === 'start' && data.reason === 'rate_limit') {
            if ((data.attempt ?? 1) > 1) break
            line(
              event,
              depth,
              `⏳ ${label} rate limited${data.message ? `: ${oneLine(data.message)}` : ''}${data.until ? ` (tries again at ${data.until.slice(11, 19)})` : ''}`,
            )
          } else if (data.phase === 'start') {
            line(event, depth, `⏸ ${label} paused: ${data.message ? oneLine(data.message) : 'its budget is spent'}`)
          } else if (data.outcome !== 'ended') {
            line(event, depth, `▸ ${label} goes on (${data.outcome ?? 'wait over'})`)
          }
          break
        }
        case 'control':
          if (event.data.action === 'resume_job') write(`job ${event.job_id} resumed after it was interrupted`)
          if (event.data.action === 'set_budget') {
            const value = event.data.value as { tokens?: number | null; cost_usd?: number | null } | null
            const caps = [
              value?.tokens ? `${groupDigits(value.tokens)} tokens` : null,
              value?.cost_usd ? formatCost(value.cost_usd) : null,
            ].filter(Boolean)
            const whose = event.agent_id ? `${labels.get(event.agent_id) ?? 'agent'}'s branch budget` : "the job's budget"
            line(event, depth, `$ ${whose} set to ${caps.join(' and ') || 'none'}${event.data.by === 'parent' ? ' by its parent' : ''}`)
          }
          break
        case 'agent.wrap_up':
          if (event.data.phase === 'delivered') {
            const label = labels.get(event.agent_id ?? '') ?? 'agent'
            line(event, depth, `↘ ${label} told to wrap up (at most ${event.data.steps_allowed ?? 2} more steps)`)
          }
          break
        case 'error':
          line(event, depth, `! ${event.agent_id ? (labels.get(event.agent_id) ?? 'agent') : 'job'}: ${errorText(event.data)}`)
          break
        case 'job.end':
          write(`job ${event.job_id} ${jobOutcome(event.data.status, event.data.reason)}`)
          break
        case 'worktree': {
          const text = worktreeLine(labels.get(event.agent_id ?? '') ?? 'agent', event.data)
          if (text) line(event, depth, text)
          break
        }
        default:
          break
      }
    }
  }
}

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat
}

/** An error event as one line; a profile file's problem names the file and field. */
const errorText = ({ file, field, message }: EventData<'error'>): string => (file ? `${file} (${field ?? '?'}): ${message}` : message)

/**
 * USD for a terminal line: cents from $1 up (`$1.25`), four decimals below (`$0.0031`), and two
 * significant digits below $0.00005 (`$0.000012`), so a tiny cost never reads as zero.
 */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0'
  if (usd >= 0.99995) return `$${usd.toFixed(2)}`
  if (usd >= 0.00005) return `$${usd.toFixed(4)}`
  return `$${usd.toFixed(Math.min(20, 1 - Math.floor(Math.log10(usd))))}`
}

/** What a terminal shows of a worktree's life: its branch, the commit's files, a merge or its conflicts. */
function worktreeLine(label: string, data: EventData<'worktree'>): string | null {
  switch (data.action) {
    case 'created':
      return `⎇ ${label} works on ${data.branch}`
    case 'committed':
      return `⎇ ${label} committed ${data.files?.length ?? 0} file(s) on ${data.branch}${data.files?.length ? `: ${data.files.join(', ')}` : ''}`
    case 'merged':
      return `⎇ ${data.branch} merged: ${data.files?.join(', ') || 'no changes'}`
    case 'conflict':
      return `⎇ ${data.branch} conflicts, nothing applied: ${data.conflicts?.map((conflict) => conflict.path).join(', ') ?? ''}`
    case 'discarded':
      return `⎇ ${data.branch} discarded (branch kept)`
    default:
      return null
  }
}
