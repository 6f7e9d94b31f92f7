import type { TraceEvent } from '../../../src-main/core/trace/events'
import { formatCost, formatDuration, formatTokens, shortId } from '../util/format'

export type Tone = 'neutral' | 'model' | 'tool' | 'ok' | 'bad' | 'warn' | 'agent'

export interface EventDescription {
  title: string
  summary: string
  tone: Tone
}

const str = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value))
const num = (value: unknown): number => (typeof value === 'number' ? value : 0)
const join = (...parts: (string | false | null | undefined)[]): string => parts.filter(Boolean).join(' · ')

/** What the root's `agent.start` records of the AGENTS.md / CLAUDE.md that went into its system prompt. */
export interface ProjectInstructionsInfo {
  file: string
  bytes: number
  truncated: boolean
}

export function projectInstructionsOf(event: TraceEvent | undefined): ProjectInstructionsInfo | null {
  if (event?.type !== 'agent.start') return null
  const value = event.data.project_instructions
  if (!value || typeof value !== 'object') return null
  const record = value as Record<string, unknown>
  if (typeof record.file !== 'string' || !record.file) return null
  return { file: record.file, bytes: num(record.bytes), truncated: record.truncated === true }
}

/** "Project instructions: AGENTS.md (1234 bytes, truncated)". */
export const projectInstructionsText = (info: ProjectInstructionsInfo): string =>
  `Project instructions: ${info.file} (${info.bytes} bytes${info.truncated ? ', truncated' : ''})`

/** The one-line summary of an event for the inspector. */
export function describeEvent(event: TraceEvent): EventDescription {
  const data = event.data
  switch (event.type) {
    case 'message':
      return { title: str(data.role) || 'message', summary: data.tool_call_id ? `for ${str(data.tool_call_id)}` : '', tone: 'neutral' }
    case 'llm.call': {
      const usage = (data.usage ?? {}) as Record<string, unknown>
      const cached = num(usage.cache_read_tokens)
      return {
        title: 'model call',
        summary: join(
          str(data.model),
          `in ${formatTokens(num(usage.input_tokens))}`,
          `out ${formatTokens(num(usage.output_tokens))}`,
          cached > 0 && `cached ${formatTokens(cached)}`,
          data.cost_usd !== null && data.cost_usd !== undefined && formatCost(num(data.cost_usd)),
          formatDuration(num(data.duration_ms)),
          str(data.finish_reason),
        ),
        tone: 'model',
      }
    }
    case 'tool.call':
      return { title: 'tool call', summary: join(str(data.name), str(data.call_id) && shortId(str(data.call_id))), tone: 'tool' }
    case 'tool.result':
      return {
        title: data.ok === false ? 'tool error' : 'tool result',
        summary: join(str(data.name), formatDuration(num(data.duration_ms)), data.truncated === true && 'truncated'),
        tone: data.ok === false ? 'bad' : 'tool',
      }
    case 'agent.start': {
      const instructions = projectInstructionsOf(event)
      return {
        title: 'start',
        summary: join(str(data.profile), str(data.model), instructions && projectInstructionsText(instructions)),
        tone: 'agent',
      }
    }
    case 'agent.end':
      return {
        title: 'result',
        summary: join(str(data.status), str(data.terminal_reason), formatDuration(num(data.duration_ms))),
        tone: data.status === 'completed' ? 'ok' : data.status === 'partial' ? 'warn' : 'bad',
      }
    case 'subagent.request':
      return { title: 'spawn', summary: join(str(data.description), str(data.profile)), tone: 'agent' }
    case 'subagent.held':
    case 'subagent.queued':
    case 'subagent.start':
      return { title: event.type.slice('subagent.'.length), summary: join(str(data.description) || str(data.profile), shortId(str(data.child_agent_id))), tone: 'agent' }
    case 'subagent.denied':
      return { title: 'spawn denied', summary: str(data.reason), tone: 'bad' }
    case 'subagent.end': {
      const envelope = (data.envelope ?? {}) as Record<string, unknown>
      return { title: 'child result', summary: join(str(envelope.status), str(envelope.profile), shortId(str(envelope.agent_id ?? data.child_agent_id))), tone: envelope.status === 'completed' ? 'ok' : 'warn' }
    }
    case 'approval.request':
      return { title: 'approval?', summary: join(str(data.tool), str(data.reason ?? data.risk_reason)), tone: 'warn' }
    case 'approval.decision':
      return { title: 'approval', summary: join(str(data.decision), str(data.by) && `by ${str(data.by)}`), tone: data.decision === 'approved' ? 'ok' : 'bad' }
    case 'control':
      return { title: 'control', summary: join(str(data.action), str(data.value), str(data.by) && `by ${str(data.by)}`), tone: 'warn' }
    case 'context.compact':
      return { title: 'compact', summary: '', tone: 'neutral' }
    case 'budget.warning':
      return { title: 'budget', summary: `${Math.floor(num(data.share) * 100)}% of the job budget used`, tone: 'warn' }
    case 'error':
      return { title: 'error', summary: str(data.message), tone: 'bad' }
    default:
      return { title: event.type, summary: '', tone: 'neutral' }
  }
}
