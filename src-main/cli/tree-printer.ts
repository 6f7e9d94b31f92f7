import type { ApiNotification } from '../core/api/contract'
import type { TraceEvent } from '../core/trace/events'

/** Prints the tree as it grows: one line per agent start, spawn decision and end. */
export function printTree(write: (line: string) => void): (notification: ApiNotification) => void {
  const labels = new Map<string, string>()
  const line = (event: TraceEvent, depth: number, text: string): void => write(`${'  '.repeat(depth)}${text}`)
  return ({ events }) => {
    for (const event of events) {
      const data = event.data
      const depth = event.depth ?? 0
      switch (event.type) {
        case 'job.start':
          write(`job ${event.job_id}: ${String(data.task)}`)
          break
        case 'agent.start':
          labels.set(event.agent_id ?? '', String(data.label))
          line(event, depth, `▶ ${String(data.label)} [${String(data.profile)}, ${String(data.model)}] started`)
          break
        case 'subagent.held':
        case 'subagent.queued':
          line(event, depth + 1, `… ${String(data.description)} ${event.type === 'subagent.held' ? 'held (spawning paused)' : 'queued'}`)
          break
        case 'subagent.denied':
          line(event, depth + 1, `✕ ${String(data.description)} denied: ${String(data.reason)}`)
          break
        case 'agent.end': {
          const usage = data.usage as { input_tokens: number; output_tokens: number } | undefined
          const tokens = usage ? `, ${usage.input_tokens + usage.output_tokens} tokens` : ''
          const cost = typeof data.cost_usd === 'number' ? `, ${formatCost(data.cost_usd)}` : ''
          line(event, depth, `■ ${labels.get(event.agent_id ?? '') ?? 'agent'} ${String(data.status)} (${String(data.terminal_reason)}, ${String(data.steps)} steps${tokens}${cost})`)
          break
        }
        case 'error':
          line(event, depth, `! ${event.agent_id ? (labels.get(event.agent_id) ?? 'agent') : 'job'}: ${errorText(data)}`)
          break
        case 'job.end':
          write(`job ${event.job_id} ${String(data.status)}`)
          break
        default:
          break
      }
    }
  }
}

/** An error event as one line; a profile file's problem names the file and field. */
const errorText = (data: Record<string, unknown>): string =>
  typeof data.file === 'string' ? `${data.file} (${String(data.field)}): ${String(data.message)}` : String(data.message)

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
