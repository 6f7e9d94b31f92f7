import { collectReply, type ModelReply } from '../providers/collect'
import { ProviderError } from '../providers/errors'
import type { Provider, ProviderMessage, ToolCall } from '../providers/types'
import type { AgentInit, AgentOutcome } from '../protocol/messages'
import { terminalReasonSchema, type TerminalReason } from '../trace/events'
import { backgroundResultsContent } from '../trace/background-results'
import { compactHistory, compactionTarget, estimateTokens, needsCompaction, type CompactionReason } from './compaction'
import { checkExploreResult, failMessage } from './explore-contract'
import { defaultStopConditions, type RunProgress, type StopCondition } from './stop-conditions'
import { ChangeTracker } from './changes/change-tracker'
import { fileChangeEvent } from '../protocol/file-change'
import type { AgentLink, Clock } from './supervisor-link'
import { attemptCompletionName, backgroundStillRunning } from './tools/attempt-completion'
import { Toolset, type ToolCallResult } from './tools/toolset'
import type { Tool } from './tools/types'

export interface RunAgentOptions {
  init: AgentInit
  provider: Provider
  /** The implemented tools; the profile's allowlist picks among them. */
  tools: Tool[]
  link: AgentLink
  clock: Clock
  /** Ids for tool calls a provider left without one. */
  ids: () => string
  /** Aborting stops the agent; a terminal reason given as the abort's reason is used (default `cancelled`). */
  signal?: AbortSignal
  stopConditions?: StopCondition[]
}

/** What one step (a model call and its tool calls) leads to. */
export type TurnOutcome =
  | { kind: 'run_again' }
  | { kind: 'final_output'; status: 'completed' | 'partial'; result: unknown; summary: string }
  | { kind: 'stopped'; terminal_reason: TerminalReason; summary: string; result?: unknown }

export const maxEmptyRetries = 3
export const maxContractRetries = 2
/** Compact-and-retry rounds after a provider's "context length exceeded" (Cline: MAX_INITIAL_STREAM_ATTEMPTS). */
export const maxContextLengthRetries = 3
export const emptyReplyNudge =
  'Your last reply was empty. Continue the task: call a tool, or call attempt_completion with your final result.'

/**
 * The ReAct loop of one agent (product.md §3): call the model with the history and the allowed
 * tools, run the tool calls (a message's calls concurrently), repeat until the agent completes
 * or a limit stops it. Every message and call is streamed to `link` as a trace event.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentOutcome> {
  const { init, provider, link, clock, signal } = options
  const profile = init.profile
  // The MCP tools the supervisor offers passed the profile's allowlist there (mcp__srv, mcp__srv__*, or by name).
  const allowlist = [...profile.tools, ...(init.mcp_tools ?? []).map((tool) => tool.name)]
  const toolset = new Toolset(options.tools, allowlist, { task: init.spawnable_profiles })
  /** What this agent's commands change in the project (`bash`); write_file and edit_file say it themselves. */
  const changes = new ChangeTracker(init.project_dir)
  const stopConditions = options.stopConditions ?? defaultStopConditions
  const progress: RunProgress = { steps: 0, tokens: 0 }
  const tools = toolset.definitions()
  const toolTokens = Math.ceil(JSON.stringify(tools).length / 4)
  const history: ProviderMessage[] = []
  let emptyReplies = 0
  let contractFailures = 0
  let lastText = ''
  /** The input tokens of the last request that got a reply; unknown again after a compaction. */
  let lastInputTokens: number | undefined

  /** `marks` go into the trace only (e.g. `by: 'arbor'`), never to the model. */
  const addMessage = (message: ProviderMessage, marks: Record<string, unknown> = {}): void => {
    history.push(message)
    link.event('message', { ...message, ...marks })
  }

  /** Truncates the history in place (no model call); false when nothing could be removed. */
  const compact = (reason: CompactionReason, measuredTokens?: number): boolean => {
    const budget = profile.context_token_budget
    const target = compactionTarget({ reason, budget, historyTokens: estimateTokens(history), toolTokens })
    const compaction = compactHistory(history, target)
    if (!compaction) return false
    link.event('context.compact', {
      reason,
      before_messages: history.length,
      after_messages: compaction.messages.length,
      removed_messages: compaction.removed,
      before_tokens: measuredTokens ?? compaction.before_tokens + toolTokens,
      after_tokens: compaction.after_tokens + toolTokens,
      budget,
      note: compaction.note,
    })
    history.splice(0, history.length, ...compaction.messages)
    lastInputTokens = undefined
    return true
  }

  const callModel = async (): Promise<ModelReply> => {
    if (needsCompaction(lastInputTokens, profile.context_token_budget)) compact('context_budget', lastInputTokens)
    for (let retries = 0; ; retries += 1) {
      let reply: ModelReply
      try {
        reply = await collectReply(provider, { messages: [...history], tools, signal })
      } catch (error) {
        if (signal?.aborted || !ProviderError.isInstance(error) || error.code !== 'context_length') throw error
        if (retries >= maxContextLengthRetries) {
          throw new ProviderError('context_length', `${error.message} (still too long after ${retries} compactions)`, { cause: error })
        }
        if (!compact('context_length'))
          throw new ProviderError('context_length', `${error.message} (nothing left to compact)`, { cause: error })
        continue
      }
      // Whoever makes the call records it and counts its usage (`llm.call`): the supervisor, for an
      // agent process. The loop keeps only what its limits read.
      progress.steps += 1
      progress.tokens += reply.usage.input_tokens + reply.usage.output_tokens
      lastInputTokens = reply.usage.input_tokens
      return { ...reply, tool_calls: withIds(reply.tool_calls, options.ids) }
    }
  }

  const runTools = async (calls: ToolCall[]): Promise<ToolCallResult[]> => {
    for (const call of calls) {
      link.event('tool.call', { call_id: call.id, name: call.name, arguments: argumentsForTrace(call.arguments) })
    }
    const results = await Promise.all(
      calls.map(async (call) => {
        const started = clock.now()
        const result = await toolset.run(call, {
          projectDir: init.project_dir,
          callId: call.id,
          signal,
          spawn: (request) => link.spawn(call.id, request, signal),
          ...(link.resumeChild
            ? { resumeChild: (agentId: string, prompt: string) => link.resumeChild!(call.id, agentId, prompt, signal) }
            : {}),
          ...(link.mergeBranch ? { mergeBranch: (agentId: string) => link.mergeBranch!(call.id, agentId) } : {}),
          background: link.background,
          requestApproval: (request) => link.requestApproval(request, signal),
          sandbox: init.sandbox,
          trackProcess: (pgid, running) => link.trackProcess(pgid, running),
          ...(link.commandWindow ? { commandWindow: (running: boolean) => link.commandWindow!(call.id, running) } : {}),
          recordChange: (change) => {
            // bash and MCP calls report through the tracker itself; a write tool's version is told to it.
            if (call.name !== 'bash' && !call.name.startsWith('mcp__')) changes.noteWrite(change)
            const { data, contents } = fileChangeEvent(change, call.id, call.name)
            link.event('file.change', data, contents)
          },
          changes,
          ...(link.callMcp
            ? {
                callMcp: (server: string, tool: string, args: Record<string, unknown>) =>
                  link.callMcp!(call.id, server, tool, args, signal),
              }
            : {}),
        })
        if (result.unexpected !== undefined) link.event('error', { message: result.unexpected, call_id: call.id })
        const { call_id, name, ok, output, truncated } = result
        link.event('tool.result', { call_id, name, ok, output, truncated, duration_ms: clock.now() - started })
        return result
      }),
    )
    for (const result of results) addMessage({ role: 'tool', content: result.output, tool_call_id: result.call_id })
    return results
  }

  /** A candidate result: checked against the profile's contract. */
  const finish = (text: string): TurnOutcome => {
    if (profile.result_contract !== 'explore') return { kind: 'final_output', status: 'completed', result: text, summary: summarize(text) }
    const check = checkExploreResult(text)
    if (check.ok) return { kind: 'final_output', status: check.result.status, result: check.result, summary: check.result.summary }
    contractFailures += 1
    if (contractFailures > maxContractRetries) {
      return { kind: 'stopped', terminal_reason: 'invalid_result', summary: `invalid result: ${check.reason}`, result: text }
    }
    addMessage({ role: 'user', content: failMessage(check.reason) })
    return { kind: 'run_again' }
  }

  const step = async (): Promise<TurnOutcome> => {
    const reply = await callModel()
    if (reply.text.trim() === '' && reply.tool_calls.length === 0) {
      emptyReplies += 1
      if (emptyReplies > maxEmptyRetries) {
        return { kind: 'stopped', terminal_reason: 'empty_response', summary: `no reply after ${maxEmptyRetries} nudges` }
      }
      addMessage({ role: 'user', content: emptyReplyNudge })
      return { kind: 'run_again' }
    }
    if (reply.text.trim() !== '') lastText = reply.text
    addMessage({ role: 'assistant', content: reply.text, ...(reply.tool_calls.length > 0 ? { tool_calls: reply.tool_calls } : {}) })
    if (reply.tool_calls.length === 0) {
      // A plain answer ends the agent like attempt_completion, refused alike while a background child runs.
      const running = link.background?.running() ?? []
      if (running.length === 0) return finish(reply.text)
      addMessage({ role: 'user', content: `[Arbor] Not finished: ${backgroundStillRunning(running)}` }, { by: 'arbor' })
      return { kind: 'run_again' }
    }
    const results = await runTools(reply.tool_calls)
    const completion = results.find((result) => result.name === attemptCompletionName && result.ok)
    if (completion) return finish((completion.args as { result: string }).result)
    return { kind: 'run_again' }
  }

  const end = (turn: Exclude<TurnOutcome, { kind: 'run_again' }>): AgentOutcome =>
    turn.kind === 'final_output'
      ? { status: turn.status, terminal_reason: 'completed', result: turn.result, summary: turn.summary }
      : { status: 'failed', terminal_reason: turn.terminal_reason, result: turn.result ?? (lastText || null), summary: turn.summary }

  /**
   * The user's messages that came in since the last step, before the next model call (never
   * cutting a model call or a tool call short): each a user message marked as the user's, in order.
   */
  const deliverSteers = (): void => {
    for (const steer of link.takeSteers?.() ?? []) {
      const message: ProviderMessage = { role: 'user', content: steerContent(steer.text) }
      history.push(message)
      link.event('message', {
        ...message,
        by: 'user',
        steer_id: steer.steer_id,
        sent_at: steer.sent_at,
        delivered_at: new Date(clock.now()).toISOString(),
      })
    }
  }

  /**
   * Envelopes of background children that ended since the last step and were not awaited: one
   * user message before the next model call, marked as Arbor's, naming the children it carries.
   */
  const deliverBackgroundResults = (): void => {
    const envelopes = link.background?.takeEnded() ?? []
    if (envelopes.length === 0) return
    addMessage(
      { role: 'user', content: backgroundResultsContent(envelopes) },
      {
        by: 'arbor',
        background_results: envelopes.map((envelope) => envelope.agent_id),
        delivered_at: new Date(clock.now()).toISOString(),
      },
    )
  }

  /**
   * The user's request to wrap up, told once at a step boundary as a user message marked as the
   * user's: finish now. The supervisor counts the steps left and ends the agent after them.
   */
  const deliverWrapUp = (): void => {
    const wrapUp = link.takeWrapUp?.()
    if (!wrapUp) return
    const message: ProviderMessage = { role: 'user', content: wrapUpContent(wrapUp.steps_allowed) }
    history.push(message)
    link.event('message', {
      ...message,
      by: 'user',
      wrap_up_id: wrapUp.wrap_up_id,
      sent_at: wrapUp.requested_at,
      delivered_at: new Date(clock.now()).toISOString(),
    })
  }

  try {
    if (init.resume) {
      // Its earlier messages are in the trace already: only what is new is recorded.
      history.push(...init.resume.history)
      for (const message of init.resume.closing) addMessage(message)
      // Calls that were waiting for an approval when the job was interrupted: they ask again.
      if (init.resume.rerun?.length) await runTools(init.resume.rerun)
    } else {
      addMessage({ role: 'system', content: profile.system_prompt })
    }
    if (!init.resume?.restart) addMessage({ role: 'user', content: init.first_message })
    for (;;) {
      if (signal?.aborted) return end(stoppedByAbort(signal))
      deliverSteers()
      deliverBackgroundResults()
      deliverWrapUp()
      const limit = stopConditions.map((condition) => condition(progress, profile)).find((stop) => stop !== undefined)
      if (limit) return end({ kind: 'stopped', ...limit })
      const turn = await step()
      if (turn.kind !== 'run_again') return end(turn)
    }
  } catch (error) {
    if (signal?.aborted) return end(stoppedByAbort(signal))
    const message = error instanceof Error ? error.message : String(error)
    if (ProviderError.isInstance(error)) {
      // The adapters name their provider in their errors; others get it added here.
      const named = message.startsWith(`${provider.kind}:`) ? message : `${provider.kind}: ${message}`
      link.event('error', { message: named, code: error.code })
      return end({ kind: 'stopped', terminal_reason: 'provider_error', summary: `provider error: ${message}` })
    }
    link.event('error', { message })
    return end({ kind: 'stopped', terminal_reason: 'crashed', summary: `crashed: ${message}` })
  }
}

/** How a user's message reads to the model: marked as the user's, not the task's or a parent's. */
export const steerContent = (text: string): string => `[A message from the user, sent while you work]\n${text}`

/** How the user's request to wrap up reads to the model: finish now, within the steps it has left. */
export const wrapUpContent = (steps: number): string =>
  `[A message from the user, sent while you work]\nWrap up now: start no new work and report what you have, done and not done. ` +
  `You have at most ${steps} more steps: call attempt_completion with your result now (or, if your final answer is plain text, ` +
  `reply with it and no tool call). After that you are stopped and only your last output is kept.`

function stoppedByAbort(signal: AbortSignal): TurnOutcome & { kind: 'stopped' } {
  const reason = terminalReasonSchema.safeParse(signal.reason)
  const terminal_reason = reason.success ? reason.data : 'cancelled'
  return { kind: 'stopped', terminal_reason, summary: `stopped: ${terminal_reason}` }
}

const summaryLength = 300

/** The first ~300 characters of a text result, on one line. */
export function summarize(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= summaryLength ? line : `${line.slice(0, summaryLength - 1).trimEnd()}…`
}

/** Gives every call a unique id; a provider may leave them empty (some OpenAI-compatible servers do). */
function withIds(calls: ToolCall[], ids: () => string): ToolCall[] {
  const seen = new Set<string>()
  return calls.map((call) => {
    const id = call.id && !seen.has(call.id) ? call.id : ids()
    seen.add(id)
    return id === call.id ? call : { ...call, id }
  })
}

/** Arguments as the trace shows them: the parsed object, or the raw text when it is not JSON. */
function argumentsForTrace(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
