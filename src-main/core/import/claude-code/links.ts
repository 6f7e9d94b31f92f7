import type { AgentStatus, TerminalReason } from '../../trace/events'
import { isRecord, textOf, type ContentBlock, type Entry } from './entries'
import type { SessionTranscripts, Transcript } from './transcripts'

/** The tools with which Claude Code spawns a subagent: `Task` until 2.1.x renamed it `Agent`. */
export const spawnTools: ReadonlySet<string> = new Set(['Task', 'Agent'])

/** One node of the tree to import: an agent, its transcript (if any was written) and how it ended. */
export interface AgentPlan {
  /** The key the Arbor agent id is made of (stable for the session). */
  key: string
  parent: AgentPlan | null
  depth: number
  label: string
  profile: string
  task: string
  transcript: Transcript | null
  /** The parent's Task/Agent call, null for the root and for a transcript no call could be found for. */
  spawn: SpawnCall | null
  outcome: Outcome
  children: AgentPlan[]
}

export interface SpawnCall {
  callId: string
  /** The calling line's time. */
  ts: string | null
  background: boolean
  /** Where the parent learnt how the child ended: the tool_result line, or a `<task-notification>`. */
  endEntry: Entry | null
}

export interface Outcome {
  status: AgentStatus
  terminalReason: TerminalReason
  result: string | null
}

interface CallSite {
  entry: Entry
  block: Extract<ContentBlock, { type: 'tool_use' }>
}

/**
 * Builds the delegation tree: each Task/Agent call is linked to the transcript it spawned by the
 * agentId of its result (`toolUseResult.agentId`, or the `agentId: …` line of the result text,
 * or meta.json's toolUseId), else inferred from the prompt (a sidechain's first user message is
 * the call's `prompt`) and time. A call with no transcript (it failed before it ran) is a child
 * that ended `failed` with the error as its result. Transcripts no call claims hang under their
 * meta.json parentAgentId, or the root.
 */
export function linkTranscripts(session: SessionTranscripts): AgentPlan {
  const unclaimed = new Map(session.others.map((transcript) => [transcript.key, transcript]))
  const byKey = new Map<string, AgentPlan>()
  const root: AgentPlan = {
    key: 'root',
    parent: null,
    depth: 0,
    label: 'root',
    profile: 'claude-code',
    task: firstUserText(session.root) ?? '',
    transcript: session.root,
    spawn: null,
    outcome: { status: 'completed', terminalReason: 'completed', result: lastAssistantText(session.root) },
    children: [],
  }
  const visit = (plan: AgentPlan): void => {
    byKey.set(plan.key, plan)
    for (const site of spawnSites(plan.transcript)) {
      const child = childOf(plan, site, unclaimed, byKey)
      plan.children.push(child)
      visit(child)
    }
  }
  visit(root)
  for (const transcript of unclaimed.values()) {
    unclaimed.delete(transcript.key)
    const parent = (transcript.meta.parentAgentId !== undefined ? byKey.get(transcript.meta.parentAgentId) : undefined) ?? root
    const orphan: AgentPlan = {
      key: transcript.key,
      parent,
      depth: parent.depth + 1,
      label: transcript.meta.description ?? 'subagent',
      profile: transcript.meta.agentType ?? 'general-purpose',
      task: firstUserText(transcript) ?? '',
      transcript,
      spawn: null,
      outcome: { status: 'completed', terminalReason: 'completed', result: lastAssistantText(transcript) },
      children: [],
    }
    parent.children.push(orphan)
    visit(orphan)
  }
  return root
}

function childOf(parent: AgentPlan, site: CallSite, unclaimed: Map<string, Transcript>, taken: Map<string, AgentPlan>): AgentPlan {
  const { block } = site
  const input = block.input
  const result = resultOf(parent.transcript, block.id)
  const details = isRecord(result?.entry.toolUseResult) ? result.entry.toolUseResult : {}
  const resultText = result ? textOf(result.block.content) : null
  const agentId = str(details.agentId) ?? (resultText !== null ? /agentId: ([\w-]+)/.exec(resultText)?.[1] : undefined) ?? null
  let transcript = agentId !== null ? unclaimed.get(agentId) : undefined
  transcript ??= [...unclaimed.values()].find((candidate) => candidate.meta.toolUseId === block.id)
  transcript ??= byPrompt(unclaimed, str(input.prompt), site.entry.timestamp)
  if (transcript) unclaimed.delete(transcript.key)
  const background = input.run_in_background === true || details.status === 'async_launched' || details.isAsync === true
  const notification = background ? notificationOf(parent.transcript, block.id, agentId) : null
  const spawn: SpawnCall = {
    callId: block.id,
    ts: site.entry.timestamp,
    background,
    endEntry: background ? (notification?.entry ?? null) : (result?.entry ?? null),
  }
  // A call that resumes an agent already shown (same agentId) is a node of its own, keyed by the call.
  const key = transcript?.key ?? (agentId !== null && !taken.has(agentId) ? agentId : block.id)
  return {
    key,
    parent,
    depth: parent.depth + 1,
    label: str(input.description) ?? transcript?.meta.description ?? str(input.name) ?? 'subagent',
    profile: str(input.subagent_type) ?? str(details.agentType) ?? transcript?.meta.agentType ?? 'general-purpose',
    task: str(input.prompt) ?? (transcript ? firstUserText(transcript) : null) ?? '',
    transcript: transcript ?? null,
    spawn,
    outcome: background ? backgroundOutcome(notification, transcript) : callOutcome(result, details, resultText, transcript),
    children: [],
  }
}

function callOutcome(
  result: { block: Extract<ContentBlock, { type: 'tool_result' }> } | null,
  details: Record<string, unknown>,
  text: string | null,
  transcript: Transcript | undefined,
): Outcome {
  if (!result) return { status: 'cancelled', terminalReason: 'cancelled', result: null }
  if (/\[Request interrupted by user/.test(text ?? '')) return { status: 'killed', terminalReason: 'killed', result: text }
  if (result.block.is_error || details.status === 'failed' || details.status === 'error') {
    // Without a transcript the call failed before an agent ran (an invalid input, say).
    return { status: 'failed', terminalReason: transcript ? 'provider_error' : 'crashed', result: text }
  }
  return { status: 'completed', terminalReason: 'completed', result: text !== null ? childResult(text) : null }
}

/** The child's own answer in the parent's tool result: without Claude Code's trailer (`agentId: …`, `worktreePath: …`) and `<usage>` block. */
const childResult = (text: string): string =>
  text
    .replace(/<usage>[\s\S]*?<\/usage>/g, '')
    .replace(/\n*agentId: [\w-]+[^\n]*(\n\w+: [^\n]*)*\s*$/, '')
    .trim()

function backgroundOutcome(notification: Notification | null, transcript: Transcript | undefined): Outcome {
  if (!notification) return { status: 'cancelled', terminalReason: 'cancelled', result: transcript ? lastAssistantText(transcript) : null }
  const result = notification.result ?? (transcript ? lastAssistantText(transcript) : null)
  if (notification.status === 'completed') return { status: 'completed', terminalReason: 'completed', result }
  if (notification.status === 'killed' || notification.status === 'stopped') return { status: 'killed', terminalReason: 'killed', result }
  return { status: 'failed', terminalReason: 'provider_error', result }
}

interface Notification {
  entry: Entry
  status: string
  result: string | null
}

/** The `<task-notification>` user message that reported a background agent's end. */
function notificationOf(transcript: Transcript | null, callId: string, agentId: string | null): Notification | null {
  for (const entry of transcript?.entries ?? []) {
    if (entry.type !== 'user' || !entry.message) continue
    const text = textOf(entry.message.content)
    if (!text.includes('<task-notification>')) continue
    const ours = tag(text, 'tool-use-id') === callId || (agentId !== null && tag(text, 'task-id') === agentId)
    if (ours) return { entry, status: tag(text, 'status') ?? 'completed', result: tag(text, 'result') ?? tag(text, 'summary') }
  }
  return null
}

const tag = (text: string, name: string): string | null => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim() ?? null

function spawnSites(transcript: Transcript | null): CallSite[] {
  const sites: CallSite[] = []
  for (const entry of transcript?.entries ?? []) {
    if (entry.type !== 'assistant' || !Array.isArray(entry.message?.content)) continue
    for (const block of entry.message.content) if (block.type === 'tool_use' && spawnTools.has(block.name)) sites.push({ entry, block })
  }
  return sites
}

function resultOf(transcript: Transcript | null, callId: string) {
  for (const entry of transcript?.entries ?? []) {
    if (entry.type !== 'user' || !Array.isArray(entry.message?.content)) continue
    for (const block of entry.message.content) if (block.type === 'tool_result' && block.tool_use_id === callId) return { entry, block }
  }
  return null
}

/** The unclaimed transcript whose first user message is the prompt, the earliest that starts after the call. */
function byPrompt(unclaimed: Map<string, Transcript>, prompt: string | null, callTs: string | null): Transcript | undefined {
  if (prompt === null) return undefined
  const callTime = callTs !== null ? Date.parse(callTs) : -Infinity
  const matching = [...unclaimed.values()].filter((transcript) => firstUserText(transcript)?.trim() === prompt.trim())
  const startOf = (transcript: Transcript): number => Date.parse(transcript.entries[0]?.timestamp ?? '') || 0
  const after = matching.filter((transcript) => startOf(transcript) >= callTime)
  return (after.length > 0 ? after : matching).sort((a, b) => startOf(a) - startOf(b))[0]
}

export function firstUserText(transcript: Transcript): string | null {
  const entry = transcript.entries.find((candidate) => candidate.type === 'user' && textOf(candidate.message?.content) !== '')
  return entry ? textOf(entry.message?.content) : null
}

function lastAssistantText(transcript: Transcript): string | null {
  for (let index = transcript.entries.length - 1; index >= 0; index--) {
    const entry = transcript.entries[index]!
    if (entry.type === 'assistant' && textOf(entry.message?.content) !== '') return textOf(entry.message?.content)
  }
  return null
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)
