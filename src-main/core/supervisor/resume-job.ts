import { builtinProfiles } from '../job/profiles'
import type { LoadedProfiles } from '../job/profiles/load'
import { rebuildHistory } from '../protocol/resume-history'
import type { ToolCall } from '../providers/types'
import type { AgentStatus, Envelope, TraceEvent } from '../trace/events'
import type { JobSettings } from '../trace/model'
import { isLiveStatus } from '../trace/statuses'
import { jobSpend, onBudgetOf } from './budget'
import { FollowUpRefused } from './follow-ups'
import { rehydrateJob, type Continuation } from './rehydrate'
import { jobRedactor, type AgentRuntime } from './runtime'

/** What JobResumes needs of the supervisor besides what every continuation does: how spawns wait again. */
export interface JobResumesOptions extends Continuation {
  /** A held or queued spawn waits again (Spawns.again). */
  wait(child: AgentRuntime): void
  /** Starts the parent's queued children while it has free slots (Spawns.pump). */
  pump(parent: AgentRuntime): void
}

/** What a tool call the interruption cut short is answered with: nobody knows how far it got. */
export const interruptedToolResult =
  '[interrupted: Arbor stopped while this tool call ran (the job was interrupted and resumed); its effects are unknown: check before relying on them]'

/**
 * Resumes a job that was interrupted (its process quit, crashed or was killed, and a sweep ended
 * it: store/interrupted.ts marks each agent it ended `interrupted`). Agents that had ended stay
 * ended. Each agent that was running goes on in a new process from its history as the trace holds
 * it, as after a crash (FollowUps.restartCrashed): a model call it was making is made again, a
 * tool call it was running is answered `interruptedToolResult`, a tool call that waited for an
 * approval nobody decided runs again and asks again, and the children it waited for are its
 * background children. A `task` call's child that completed before the interruption answers
 * that call with its envelope. Held and queued spawns wait again and start when they may. The job
 * spends on from what its agents had spent. `control resume_job` on the job and
 * `agent.restart {cause: 'interrupted'}` on each agent record it.
 */
export class JobResumes {
  constructor(private readonly options: JobResumesOptions) {}

  resume(jobId: string, loadedProfiles?: LoadedProfiles): { agent_ids: string[] } {
    const { stored, events, was } = this.interrupted(jobId)
    const context = this.options.jobContext(stored.job.project, stored.job.settings)
    const job = rehydrateJob(stored, {
      context,
      redactor: jobRedactor(context, this.options.env),
      profiles: loadedProfiles?.profiles ?? builtinProfiles,
      ...(loadedProfiles?.mcpServers ? { mcpServers: loadedProfiles.mcpServers } : {}),
    })
    // A job that pauses at its cap resumes paused (its agents wait at their next call for a raise); one that stops would stop at once.
    if (onBudgetOf(job) === 'stop' && jobSpend(job).share >= 1) {
      throw new FollowUpRefused('conflict', `job ${jobId} had spent its token or cost budget: follow it up with higher caps instead`)
    }
    try {
      this.options.sink.reopenJob?.(jobId, { interrupted: true })
    } catch (error) {
      throw new FollowUpRefused('conflict', error instanceof Error ? error.message : String(error))
    }
    this.options.jobs.set(job.id, job)
    for (const agent of job.agents.values()) this.options.agents.set(agent.id, agent)
    job.ended = false
    job.active = true
    job.rootReason = null
    this.options.trace.job(job, 'control', { action: 'resume_job', target: job.id, value: true, by: 'user' })

    // Parents before children (storedJob's order); a child goes on only under a parent that does.
    const resumed = [...job.agents.values()].filter((agent) => was.has(agent.id) && (agent.parent === null || was.has(agent.parent.id)))
    for (const agent of resumed) {
      const node = stored.agents.find((each) => each.id === agent.id)
      reopenAgent(agent, was.get(agent.id)!, node?.started_at ?? null, events)
    }
    for (const agent of resumed) {
      if (isLiveStatus(agent.status)) this.continueAgent(agent, events.get(agent.id) ?? [])
    }
    const waiting = resumed.filter((agent) => agent.status === 'held' || agent.status === 'queued')
    for (const child of waiting) this.options.wait(child)
    for (const parent of new Set(waiting.map((child) => child.parent!))) this.options.pump(parent)
    return { agent_ids: resumed.map((agent) => agent.id) }
  }

  /**
   * The stored job, if it may be resumed, with its agents' events and what each agent the sweep
   * ended was doing (`interrupted_status`); FollowUpRefused names why not. Every history that
   * will be rebuilt is rebuilt here once, so a resume that starts does not fail half-way.
   */
  private interrupted(jobId: string) {
    const { source } = this.options
    if (!source) throw new FollowUpRefused('conflict', 'this supervisor keeps no trace to resume a job from')
    const live = this.options.jobs.get(jobId)
    if (live && !live.ended) throw new FollowUpRefused('conflict', `job ${jobId} is running in this Arbor process already`)
    const stored = source.storedJob(jobId)
    if (!stored) throw new FollowUpRefused('not_found', `no job ${jobId}`)
    const { status } = stored.job
    if (status === 'running') {
      throw new FollowUpRefused('conflict', `job ${jobId} is running in another Arbor process: it is not interrupted`)
    }
    if (status !== 'interrupted') {
      throw new FollowUpRefused(
        'conflict',
        `job ${jobId} is ${status}, not interrupted: only an interrupted job can be resumed (follow it up instead)`,
      )
    }
    const events = new Map(stored.agents.map((node) => [node.id, source.agentEvents(node.id)]))
    const was = new Map<string, AgentStatus>()
    for (const node of stored.agents) {
      const end = events.get(node.id)?.findLast((event) => event.type === 'agent.end')
      if (end?.type === 'agent.end' && end.data.interrupted) was.set(node.id, end.data.interrupted_status ?? 'running')
    }
    if (was.size === 0) {
      throw new FollowUpRefused(
        'conflict',
        `job ${jobId} has no agent the interruption ended (it was interrupted before Arbor recorded which): nothing to resume`,
      )
    }
    for (const node of stored.agents) {
      const history = was.has(node.id) && node.status === 'failed' ? rebuildHistory(events.get(node.id) ?? []) : null
      if (history && 'error' in history) throw new FollowUpRefused('conflict', `${node.label} cannot be resumed: ${history.error}`)
    }
    return { stored, events, was }
  }

  /** A running agent's new process, from its history: what it was doing when the job stopped is answered or done again. */
  private continueAgent(agent: AgentRuntime, events: readonly TraceEvent[]): void {
    const children = new Map<string, AgentRuntime>()
    const envelopes = new Map<string, Envelope>()
    for (const event of events) {
      if (event.type === 'subagent.request' && event.data.call_id) {
        const child = agent.job.agents.get(event.data.child_agent_id)
        if (child) children.set(event.data.call_id, child)
      } else if (event.type === 'subagent.end') {
        envelopes.set(event.data.child_agent_id, event.data.envelope as Envelope)
      }
    }
    const rerun = callsAwaitingApproval(events)
    const history = rebuildHistory(events, (callId) => {
      const child = children.get(callId)
      if (!child) return interruptedToolResult
      if (!child.ended) {
        return `[interrupted: the job was interrupted and resumed; the subagent ${child.label} (${child.id}) goes on in the background: await_tasks waits for its result envelope, which also reaches you as a message when it ends. Do not start it again.]`
      }
      const envelope = envelopes.get(child.id)
      return envelope ? JSON.stringify(envelope) : interruptedToolResult
    })
    // Checked before the job was taken over: the same events rebuild the same way.
    if ('error' in history) throw new Error(`${agent.label} cannot be resumed: ${history.error}`)
    const last = history.messages.findLast((message) => message.role === 'assistant')
    const calls: ToolCall[] = (last?.role === 'assistant' ? last.tool_calls : undefined) ?? []
    const again = calls.filter(
      (call) => rerun.has(call.id) && history.closing.some((message) => message.role === 'tool' && message.tool_call_id === call.id),
    )
    // The request nobody decided is closed in the trace; the call asks anew.
    for (const call of again) {
      this.options.trace.agent(agent, 'approval.decision', {
        approval_id: rerun.get(call.id)!,
        decision: 'denied',
        by: 'auto_deny',
        reason: 'the job was interrupted before anyone decided: the command asks again now that it is resumed',
      })
    }
    const closing = history.closing.filter((message) => message.role !== 'tool' || !again.some((call) => call.id === message.tool_call_id))
    const background = agent.children.filter((child) => !child.ended)
    const ended = undeliveredEnvelopes(agent, events, envelopes)
    this.options.trace.agent(agent, 'agent.restart', {
      cause: 'interrupted',
      from_step: agent.steps,
      label: agent.label,
      ...(again.length > 0 ? { rerun_calls: again.map((call) => call.id) } : {}),
    })
    this.options.launch(agent, '', {
      history: history.messages,
      closing,
      restart: true,
      ...(background.length > 0 ? { running_children: background.map((child) => ({ agent_id: child.id, description: child.label })) } : {}),
      ...(again.length > 0 ? { rerun: again } : {}),
      ...(ended.length > 0 ? { ended_children: ended } : {}),
    })
  }
}

/**
 * An agent the sweep ended, live again as it was then (`was`), before its process starts: its
 * request as its parent made it, its tool counts and last text from its events. No call of its
 * parent's new process waits for it: its envelope reaches the parent as a message.
 */
function reopenAgent(agent: AgentRuntime, was: AgentStatus, startedAt: string | null, events: ReadonlyMap<string, TraceEvent[]>): void {
  const own = events.get(agent.id) ?? []
  agent.ended = false
  // A call held for a rate limit or a budget is made again by the new process, and waits again if it must.
  agent.status = was === 'rate_limited' || was === 'paused' ? 'running' : was
  agent.startedAt = startedAt ? Date.parse(startedAt) : null
  agent.request = agent.parent ? requestOf(agent, events.get(agent.parent.id) ?? [], own, agent.job.settings) : null
  agent.callId = null
  agent.reportsToParent = agent.parent !== null
  for (const event of own) {
    if (event.type === 'tool.call') agent.toolUsage[event.data.name] = (agent.toolUsage[event.data.name] ?? 0) + 1
    if (event.type === 'message' && event.data.role === 'assistant' && event.data.content) agent.lastText = event.data.content
  }
}

/**
 * The tool calls that asked for an approval nobody decided (the job stopped first): each
 * `approval.request` without a decision, matched to an unfinished `tool.call` of the same tool
 * running the same command. Returns call id → approval id.
 */
function callsAwaitingApproval(events: readonly TraceEvent[]): Map<string, string> {
  const decided = new Set(events.flatMap((event) => (event.type === 'approval.decision' ? [event.data.approval_id] : [])))
  const finished = new Set(events.flatMap((event) => (event.type === 'tool.result' ? [event.data.call_id] : [])))
  const open = events.flatMap((event) => (event.type === 'tool.call' && !finished.has(event.data.call_id) ? [event.data] : []))
  const calls = new Map<string, string>()
  for (const event of events) {
    if (event.type !== 'approval.request' || decided.has(event.data.approval_id)) continue
    const { tool, command } = event.data
    const call = open.find((each) => {
      const args = each.arguments as { command?: unknown } | null
      return !calls.has(each.call_id) && each.name === tool && (typeof args?.command !== 'string' || args.command === command)
    })
    if (call) calls.set(call.call_id, event.data.approval_id)
  }
  return calls
}

/**
 * Background children that ended before the interruption whose envelope the parent's model never
 * saw: neither delivered as Arbor's message nor returned by `await_tasks`.
 */
function undeliveredEnvelopes(
  agent: AgentRuntime,
  events: readonly TraceEvent[],
  envelopes: ReadonlyMap<string, Envelope>,
): Array<{ description: string; envelope: Envelope }> {
  const seen = new Set<string>()
  const awaited: string[] = []
  for (const event of events) {
    if (event.type === 'message') for (const id of event.data.background_results ?? []) seen.add(id)
    if (event.type === 'tool.result' && event.data.name === 'await_tasks') awaited.push(event.data.output)
  }
  return agent.children.flatMap((child) => {
    const envelope = envelopes.get(child.id)
    if (!child.ended || child.request?.background !== true || !envelope || seen.has(child.id)) return []
    if (awaited.some((output) => output.includes(`"${child.id}"`))) return []
    return [{ description: child.label, envelope }]
  })
}

/**
 * A child's `task` request as its parent made it (`subagent.request`), with the user's edited
 * prompt if there was one; `light` when it ran on the job's light model. Its structured context
 * is not in the trace: a queued child starts without it.
 */
function requestOf(
  child: AgentRuntime,
  parentEvents: readonly TraceEvent[],
  ownEvents: readonly TraceEvent[],
  settings: JobSettings,
): AgentRuntime['request'] {
  const asked = parentEvents.find((event) => event.type === 'subagent.request' && event.data.child_agent_id === child.id)
  if (asked?.type !== 'subagent.request') return null
  const edited = ownEvents.findLast((event) => event.type === 'control' && event.data.action === 'edit_spawn')
  const prompt = edited?.type === 'control' && typeof edited.data.value === 'string' ? edited.data.value : asked.data.task
  const light = child.model !== null && child.model === settings.light_model && child.model !== settings.model
  return {
    description: asked.data.description,
    prompt,
    subagent_type: asked.data.profile,
    ...(asked.data.background ? { background: true } : {}),
    ...(light ? { model: 'light' as const } : {}),
  }
}
