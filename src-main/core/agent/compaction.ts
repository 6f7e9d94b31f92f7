import type { ProviderMessage } from '../providers/types'

/**
 * Compaction by truncation (product.md §3; MyCodeAgent's and Cline's subagents): no model call,
 * the system prompt and the task stay, the oldest exchanges go, a note says how many.
 */

/** Compact before a model call when the last request used more than this share of the context budget. */
export const compactionThreshold = 0.75
/** A compacted history is cut to this share of the budget, so it does not compact again at once. */
export const compactionTargetShare = 0.5

export type CompactionReason = 'context_budget' | 'context_length'

export const compactionNote = (removed: number): string =>
  `[${removed} earlier ${removed === 1 ? 'message was' : 'messages were'} removed to fit the context budget]`
const notePattern = /^\[(\d+) earlier messages? (?:was|were) removed to fit the context budget\]$/

/** About 4 characters a token (as the scripted provider counts): good enough to choose what to keep. */
export const estimateTokens = (messages: readonly ProviderMessage[]): number =>
  Math.ceil(messages.reduce((sum, message) => sum + messageCharacters(message), 0) / 4)

function messageCharacters(message: ProviderMessage): number {
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : []
  return message.content.length + calls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0)
}

/** Whether the last request's input crossed the threshold; never without a budget or a last request. */
export function needsCompaction(lastInputTokens: number | undefined, budget: number | null): boolean {
  return budget !== null && lastInputTokens !== undefined && lastInputTokens > budget * compactionThreshold
}

export interface Compaction {
  messages: ProviderMessage[]
  /** Messages removed this time (the note of an earlier compaction not counted). */
  removed: number
  /** The user message standing in for everything removed so far. */
  note: string
  before_tokens: number
  after_tokens: number
}

/**
 * Keeps the head (the system prompt and the first user message, the task), a note counting
 * every message removed so far, and the newest messages whose estimate fits in `targetTokens`
 * with the head. An assistant message and the tool results answering its calls stay or go
 * together; the newest exchange always stays, and at least the oldest one goes. Undefined when
 * there is nothing to remove.
 */
export function compactHistory(
  messages: readonly ProviderMessage[],
  targetTokens: number,
  estimate: (messages: readonly ProviderMessage[]) => number = estimateTokens,
): Compaction | undefined {
  const taskIndex = messages.findIndex((message) => message.role === 'user')
  if (taskIndex < 0) return undefined
  const head = messages.slice(0, taskIndex + 1)
  let rest = messages.slice(taskIndex + 1)
  const earlierNote = rest[0]?.role === 'user' ? notePattern.exec(rest[0].content) : null
  const removedBefore = earlierNote ? Number(earlierNote[1]) : 0
  if (earlierNote) rest = rest.slice(1)

  const exchanges = groupExchanges(rest)
  if (exchanges.length < 2) return undefined
  const newest = exchanges[exchanges.length - 1]!
  let used = estimate(head) + estimate([{ role: 'user', content: compactionNote(messages.length) }]) + estimate(newest)
  let firstKept = exchanges.length - 1
  while (firstKept > 1) {
    const cost = estimate(exchanges[firstKept - 1]!)
    if (used + cost > targetTokens) break
    used += cost
    firstKept -= 1
  }
  const kept = exchanges.slice(firstKept).flat()
  const removed = rest.length - kept.length
  const note = compactionNote(removedBefore + removed)
  const compacted: ProviderMessage[] = [...head, { role: 'user', content: note }, ...kept]
  return { messages: compacted, removed, note, before_tokens: estimate(messages), after_tokens: estimate(compacted) }
}

/** Splits history into exchanges: an assistant message with the tool results after it, or one other message. */
function groupExchanges(messages: readonly ProviderMessage[]): ProviderMessage[][] {
  const exchanges: ProviderMessage[][] = []
  for (const message of messages) {
    const current = exchanges[exchanges.length - 1]
    if (message.role === 'tool' && current?.[0]?.role === 'assistant') current.push(message)
    else exchanges.push([message])
  }
  return exchanges
}

/**
 * How many tokens the kept messages may use: half the budget less what the tool definitions
 * take; after a "context length exceeded" error, at most half of what was sent.
 */
export function compactionTarget(options: {
  reason: CompactionReason
  budget: number | null
  historyTokens: number
  toolTokens: number
}): number {
  const byBudget = options.budget === null ? Infinity : Math.floor(options.budget * compactionTargetShare) - options.toolTokens
  const byOverflow = options.reason === 'context_length' ? Math.floor(options.historyTokens / 2) : Infinity
  const target = Math.min(byBudget, byOverflow)
  return Number.isFinite(target) ? Math.max(0, target) : 0
}
