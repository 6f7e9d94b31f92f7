import type { EventData, TraceEvent } from '@core/trace/events'
import type { WaitOutcome, WaitReason } from '@core/trace/statuses'
import { formatCost, formatDuration, formatTokens, shortId } from '../util/format'

export type Tone = 'neutral' | 'model' | 'tool' | 'ok' | 'bad' | 'warn' | 'agent'

export interface EventDescription {
  title: string
  summary: string
  tone: Tone
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`

const join = (...parts: (string | false | null | undefined)[]): string => parts.filter(Boolean).join(' · ')

/** What the root's `agent.start` records of the AGENTS.md / CLAUDE.md that went into its system prompt. */
export type ProjectInstructionsInfo = NonNullable<EventData<'agent.start'>['project_instructions']>

const waitTitles: Record<WaitReason, string> = {
  rate_limit: 'rate limited',
  job_budget: "paused: the job's budget",
  branch_budget: "paused: the branch's budget",
}

const waitOutcomeText: Record<WaitOutcome, string> = {
  retried: 'tried again',
  retry_now: 'you said retry now',
  raised: 'the cap was raised',
  gave_up: 'waited too long: the call failed',
  ended: 'the agent ended',
}

export function projectInstructionsOf(event: TraceEvent | undefined): ProjectInstructionsInfo | null {
  if (event?.type !== 'agent.start') return null
  const info = event.data.project_instructions
  return info?.file ? info : null
}

/** "Project instructions: AGENTS.md (1234 bytes, truncated)". */
export const projectInstructionsText = (info: ProjectInstructionsInfo): string =>
  `Project instructions: ${info.file} (${info.bytes} bytes${info.truncated ? ', truncated' : ''})`

/** The one-line summary of an event for the inspector; each case reads its type's data (events.ts). */
/** `{tokens, cost_usd}` caps as a line: "50k tok · $2.00", or "none". */
function capsText(caps: unknown): string {
  if (!caps || typeof caps !== 'object') return 'none'
  const { tokens, cost_usd } = caps as { tokens?: unknown; cost_usd?: unknown }
  const parts = [
    typeof tokens === 'number' ? `${formatTokens(tokens)} tok` : null,
    typeof cost_usd === 'number' ? formatCost(cost_usd) : null,
  ].filter(Boolean)
  return parts.length > 0 ? parts.join(' · ') : 'none'
}

export function describeEvent(event: TraceEvent): EventDescription {
  switch (event.type) {
    case 'message': {
      const { role, tool_call_id } = event.data
      if (event.data.by === 'user') {
        // A message the user sent while the agent ran: when it was sent, and when it arrived.
        const at = (value: unknown) => (typeof value === 'string' ? new Date(value).toLocaleTimeString() : '?')
        if (typeof event.data.wrap_up_id === 'string') {
          return {
            title: 'you: wrap up',
            summary: `asked ${at(event.data.sent_at)} · delivered ${at(event.data.delivered_at)}`,
            tone: 'warn',
          }
        }
        return { title: 'you', summary: `sent ${at(event.data.sent_at)} · delivered ${at(event.data.delivered_at)}`, tone: 'warn' }
      }
      if (event.data.by === 'arbor') {
        // Written by Arbor into the agent's history: background children's results, or a refused finish.
        const results = event.data.background_results ?? []
        return results.length > 0
          ? { title: 'arbor', summary: `results of ${plural(results.length, 'background subagent')}`, tone: 'agent' }
          : { title: 'arbor', summary: 'finish refused: background subagents still run', tone: 'warn' }
      }
      return { title: role, summary: tool_call_id ? `for ${tool_call_id}` : '', tone: 'neutral' }
    }
    case 'llm.call': {
      const { usage, model, cost_usd, duration_ms, finish_reason, aborted } = event.data
      return {
        title: 'model call',
        summary: join(
          model,
          `in ${formatTokens(usage.input_tokens)}`,
          `out ${formatTokens(usage.output_tokens)}`,
          usage.cache_read_tokens > 0 && `cached ${formatTokens(usage.cache_read_tokens)}`,
          cost_usd !== null && formatCost(cost_usd),
          formatDuration(duration_ms),
          finish_reason,
          aborted && `aborted: ${aborted}`,
        ),
        tone: 'model',
      }
    }
    case 'tool.call':
      return { title: 'tool call', summary: join(event.data.name, shortId(event.data.call_id)), tone: 'tool' }
    case 'tool.result': {
      const { ok, name, duration_ms, truncated } = event.data
      return {
        title: ok ? 'tool result' : 'tool error',
        summary: join(name, formatDuration(duration_ms), truncated && 'truncated'),
        tone: ok ? 'tool' : 'bad',
      }
    }
    case 'agent.start': {
      const instructions = projectInstructionsOf(event)
      return {
        title: 'start',
        summary: join(event.data.profile, event.data.model, instructions && projectInstructionsText(instructions)),
        tone: 'agent',
      }
    }
    case 'agent.resume': {
      const { by, previous_status, history_messages } = event.data
      return {
        title: by === 'user' ? 'follow-up' : 'resumed by parent',
        summary: join(`after ${previous_status}`, `${history_messages} earlier messages`),
        tone: 'agent',
      }
    }
    case 'agent.health': {
      const { state, silent_ms } = event.data
      return state === 'unresponsive'
        ? { title: 'unresponsive', summary: `its process said nothing for ${Math.round(silent_ms / 1000)} s`, tone: 'bad' }
        : { title: 'responsive', summary: `its process spoke again after ${Math.round(silent_ms / 1000)} s`, tone: 'ok' }
    }
    case 'agent.restart': {
      const { from_step, restart, restarts_allowed, signal, code, cause } = event.data
      if (cause === 'user') {
        return { title: 'restarted', summary: join('by you, in a new process', `goes on after step ${from_step}`), tone: 'warn' }
      }
      if (cause === 'interrupted') {
        const rerun = event.data.rerun_calls?.length
        return {
          title: 'resumed',
          summary: join(
            'the job was interrupted',
            `goes on after step ${from_step}`,
            rerun ? `asks again for ${rerun} approval${rerun === 1 ? '' : 's'}` : null,
          ),
          tone: 'warn',
        }
      }
      return {
        title: 'restarted',
        summary: join(
          `its process crashed (${signal ?? `code ${code ?? '?'}`})`,
          `goes on after step ${from_step}`,
          `restart ${restart} of ${restarts_allowed}`,
        ),
        tone: 'warn',
      }
    }
    case 'agent.wait': {
      const { phase, reason, message, until, attempt, outcome, waited_ms } = event.data
      const what = waitTitles[reason]
      return phase === 'start'
        ? {
            title: what,
            summary: join(
              message,
              until ? `tries again at ${new Date(until).toLocaleTimeString()}` : 'until you raise the cap',
              (attempt ?? 1) > 1 && `wait ${attempt}`,
            ),
            tone: 'warn',
          }
        : {
            title: `${what}: over`,
            summary: join(outcome && waitOutcomeText[outcome], waited_ms !== undefined && formatDuration(waited_ms)),
            tone: 'agent',
          }
    }
    case 'agent.end': {
      const { status, terminal_reason, duration_ms } = event.data
      return {
        title: 'result',
        summary: join(status, terminal_reason, event.data.wrapped_up && 'wrapped up', formatDuration(duration_ms)),
        tone: status === 'completed' ? 'ok' : status === 'partial' ? 'warn' : 'bad',
      }
    }
    case 'agent.wrap_up': {
      const { phase, target, steps_allowed } = event.data
      const asked = target === event.agent_id ? 'by you' : `by you, with ${shortId(target)}`
      return phase === 'delivered'
        ? { title: 'wrap up', summary: join('told at its step', `${steps_allowed ?? 2} steps left to finish`), tone: 'warn' }
        : { title: 'wrap up', summary: join(`asked ${asked}`, 'told at its next step'), tone: 'warn' }
    }
    case 'subagent.request':
      return {
        title: 'spawn',
        summary: join(event.data.description, event.data.profile, event.data.background && 'background'),
        tone: 'agent',
      }
    case 'subagent.held':
      return {
        title: 'held',
        summary: join(event.data.description || event.data.profile, event.data.reason, shortId(event.data.child_agent_id)),
        tone: event.data.limit ? 'warn' : 'agent',
      }
    case 'subagent.queued':
    case 'subagent.start':
      return {
        title: event.type.slice('subagent.'.length),
        summary: join(event.data.description || event.data.profile, shortId(event.data.child_agent_id)),
        tone: 'agent',
      }
    case 'subagent.denied':
      return { title: 'spawn denied', summary: event.data.reason, tone: 'bad' }
    case 'subagent.end': {
      const { envelope } = event.data
      return {
        title: 'child result',
        summary: join(envelope.status, envelope.profile, envelope.wrapped_up && 'wrapped up', shortId(envelope.agent_id)),
        tone: envelope.status === 'completed' ? 'ok' : 'warn',
      }
    }
    case 'approval.request':
      return { title: 'approval?', summary: join(event.data.tool, event.data.reason), tone: 'warn' }
    case 'approval.decision': {
      const { decision, by } = event.data
      return { title: 'approval', summary: join(decision, `by ${by}`), tone: decision === 'approved' ? 'ok' : 'bad' }
    }
    case 'control': {
      const { action, value, by } = event.data
      // The prompt itself is the row's body (EventRow), not its one-line summary.
      if (action === 'edit_spawn') return { title: 'prompt edited', summary: `by ${by}`, tone: 'warn' }
      if (action === 'resume_job') return { title: 'job resumed', summary: `after it was interrupted, by ${by}`, tone: 'warn' }
      if (action === 'allow_spawn') return { title: 'spawn allowed', summary: join(`past ${String(value)}`, `by ${by}`), tone: 'warn' }
      if (action === 'revert_changes') {
        const { subtree, files } = (value ?? {}) as { subtree?: boolean; files?: unknown[] }
        const count = Array.isArray(files) ? files.length : 0
        const what = `${count} ${count === 1 ? 'file' : 'files'} put back${subtree ? ', its subtree’s too' : ''}`
        return { title: 'changes reverted', summary: join(what, `by ${by}`), tone: 'warn' }
      }
      if (action === 'set_budget') {
        const whose = event.data.target === event.job_id ? "the job's budget" : 'branch budget'
        return {
          title: 'budget',
          summary: join(`${whose} set to ${capsText(value)}`, `was ${capsText(event.data.previous)}`, `by ${by}`),
          tone: 'warn',
        }
      }
      return { title: 'control', summary: join(action, value === undefined ? '' : String(value), `by ${by}`), tone: 'warn' }
    }
    case 'context.compact': {
      const { before_tokens, after_tokens } = event.data
      const tokens =
        before_tokens !== undefined && after_tokens !== undefined && `${formatTokens(before_tokens)} → ${formatTokens(after_tokens)} tokens`
      return { title: 'compact', summary: join(event.data.reason, tokens), tone: 'neutral' }
    }
    case 'budget.warning':
      return { title: 'budget', summary: `${Math.floor((event.data.share ?? 0) * 100)}% of the job budget used`, tone: 'warn' }
    case 'file.change': {
      const { path, kind, from_path, tool } = event.data
      const where = kind === 'renamed' && from_path ? `${from_path} → ${path}` : path
      // A revert's change (Revert changes…) is the user's, not a tool call's.
      return { title: kind, summary: tool === 'revert' ? join(where, 'by revert') : where, tone: 'neutral' }
    }
    case 'error':
      return { title: 'error', summary: event.data.message, tone: 'bad' }
    case 'worktree':
      return describeWorktree(event.data)
    case 'job.start':
    case 'job.end':
      return { title: event.type, summary: '', tone: 'neutral' }
  }
}

/** A worktree's step (worktrees/worktrees.ts): its branch, and the files or conflicts it names. */
function describeWorktree(data: EventData<'worktree'>): EventDescription {
  const files = (names: string[] | undefined) =>
    names && names.length > 0 ? `${names.length} file${names.length === 1 ? '' : 's'}: ${names.join(', ')}` : 'no files'
  const by = data.by === 'parent' ? 'by its parent' : data.by === 'user' ? 'by you' : ''
  switch (data.action) {
    case 'created':
      return { title: 'worktree', summary: `on ${data.branch}, from its parent's state`, tone: 'agent' }
    case 'committed':
      return { title: 'committed', summary: join(`on ${data.branch}`, files(data.files)), tone: 'neutral' }
    case 'merged':
      return { title: 'merged', summary: join(data.branch, by, files(data.files)), tone: 'ok' }
    case 'conflict':
      return {
        title: 'merge conflict',
        summary: join(data.branch, by, `nothing applied; ${files(data.conflicts?.map((conflict) => conflict.path))}`),
        tone: 'bad',
      }
    case 'discarded':
      return { title: 'discarded', summary: join(`worktree removed`, `${data.branch} kept`), tone: 'warn' }
    case 'removed':
      return { title: 'worktree removed', summary: `${data.branch} kept`, tone: 'neutral' }
  }
}
