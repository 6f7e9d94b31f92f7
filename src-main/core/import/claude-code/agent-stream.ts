import { costOf, type PriceTable } from '../../providers/pricing'
import type { EventType } from '../../trace/events'
import { addCost, addUsage, emptyUsage, type Usage } from '../../trace/usage'
import { textOf, type ContentBlock, type Entry } from './entries'
import type { AgentPlan } from './links'

/** One step of an agent's stream, in its transcript's order. */
export type StreamItem =
  | { kind: 'event'; ts: string; type: EventType; data: Record<string, unknown> }
  /** The parent's spawn of `child`: subagent.request and .start, after which the child's stream runs. */
  | { kind: 'spawn'; ts: string; child: AgentPlan }
  /** The parent learns the child ended: subagent.end, held back until the child's agent.end is out. */
  | { kind: 'spawned'; ts: string; child: AgentPlan }

export interface AgentTotals {
  usage: Usage
  cost_usd: number | null
  steps: number
}

/**
 * Usage counted once per API response: Claude Code writes one line per content block, each with
 * the response's `message.id` and usage; `output_tokens` grows on later lines of a streamed
 * response, so each count is the largest any of its lines shows.
 */
export function usageByMessage(entries: Iterable<Entry>): Map<string, Usage> {
  const usages = new Map<string, Usage>()
  for (const entry of entries) {
    const id = entry.message?.id
    if (entry.type !== 'assistant' || !id || !entry.message?.usage) continue
    const next = usageOf(entry.message.usage)
    const known = usages.get(id)
    usages.set(id, known ? maxUsage(known, next) : next)
  }
  return usages
}

/** Anthropic's counts as Arbor's: input counts every prompt token, cached ones included. */
function usageOf(raw: Record<string, unknown>): Usage {
  const count = (key: string): number =>
    typeof raw[key] === 'number' && Number.isSafeInteger(raw[key]) && (raw[key] as number) > 0 ? (raw[key] as number) : 0
  const cacheRead = count('cache_read_input_tokens')
  const cacheWrite = count('cache_creation_input_tokens')
  return {
    input_tokens: count('input_tokens') + cacheRead + cacheWrite,
    output_tokens: count('output_tokens'),
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: 0,
  }
}

const maxUsage = (a: Usage, b: Usage): Usage => ({
  input_tokens: Math.max(a.input_tokens, b.input_tokens),
  output_tokens: Math.max(a.output_tokens, b.output_tokens),
  cache_read_tokens: Math.max(a.cache_read_tokens, b.cache_read_tokens),
  cache_write_tokens: Math.max(a.cache_write_tokens, b.cache_write_tokens),
  reasoning_tokens: 0,
})

export interface StreamContext {
  usages: Map<string, Usage>
  /** message.ids whose llm.call is out already: a response is counted once in the whole session. */
  counted: Set<string>
  prices?: PriceTable
}

/** The agent's model: the first assistant line's, API-error lines (`<synthetic>`) aside. */
export function modelOf(plan: AgentPlan): string | null {
  for (const entry of plan.transcript?.entries ?? []) {
    const model = entry.message?.model
    if (entry.type === 'assistant' && model && model !== '<synthetic>') return model
  }
  return null
}

/**
 * Turns one agent's transcript into its stream: agent.start, then per line the messages, model
 * calls (one per API response), tool calls and results and the spawns of its children, then
 * agent.end with the totals of its own calls.
 */
export function agentStream(plan: AgentPlan, context: StreamContext): { items: StreamItem[]; totals: AgentTotals } {
  return new StreamBuilder(plan, context).build()
}

type EntryMessage = NonNullable<Entry['message']>

class StreamBuilder {
  private readonly items: StreamItem[] = []
  private readonly totals: AgentTotals = { usage: emptyUsage(), cost_usd: null, steps: 0 }
  private readonly toolUsage: Record<string, number> = {}
  private readonly tools: string[] = []
  private readonly calls = new Map<string, { name: string; ts: string }>()
  /** The children spawned by each call of this agent, and the line where each one's end is heard of. */
  private readonly childByCall = new Map<string, AgentPlan>()
  private readonly endsAt = new Map<Entry, AgentPlan[]>()
  private readonly groups: Map<string, Entry[]>
  private readonly emitted = new Set<string>()
  private readonly model: string | null
  private readonly startTs: string
  private ts: string
  private previousTs: string

  constructor(
    private readonly plan: AgentPlan,
    private readonly context: StreamContext,
  ) {
    const entries = plan.transcript?.entries ?? []
    this.groups = groupByMessage(entries)
    this.model = modelOf(plan)
    this.startTs = plan.spawn?.ts ?? entries[0]?.timestamp ?? epoch
    this.ts = this.previousTs = this.startTs
    for (const child of plan.children) {
      if (child.spawn) this.childByCall.set(child.spawn.callId, child)
      if (child.spawn?.endEntry) this.endsAt.set(child.spawn.endEntry, [...(this.endsAt.get(child.spawn.endEntry) ?? []), child])
    }
  }

  build(): { items: StreamItem[]; totals: AgentTotals } {
    for (const entry of this.plan.transcript?.entries ?? []) {
      this.ts = entry.timestamp ?? this.ts
      if (!entry.message) continue
      // A child the parent hears of here (its result or notification): subagent.end comes first, as live.
      for (const child of this.endsAt.get(entry) ?? []) this.items.push({ kind: 'spawned', ts: this.ts, child })
      if (entry.type === 'assistant') this.assistant(entry, entry.message)
      else this.user(entry, entry.message)
      this.previousTs = this.ts
    }
    // A child no call was found for (an orphan transcript) is spawned where its own transcript starts.
    for (const child of this.plan.children) {
      if (!child.spawn) insertByTime(this.items, { kind: 'spawn', ts: child.transcript?.entries[0]?.timestamp ?? this.ts, child })
    }
    // Children whose end was never reported here (a background agent without notification, a cut session).
    for (const child of this.plan.children) if (!child.spawn?.endEntry) this.items.push({ kind: 'spawned', ts: this.ts, child })
    this.items.unshift(this.start())
    this.items.push(this.end())
    return { items: this.items, totals: this.totals }
  }

  private event(type: EventType, data: Record<string, unknown>): void {
    this.items.push({ kind: 'event', ts: this.ts, type, data })
  }

  /** The first line of an API response brings its model call and its whole message; each line its tool calls. */
  private assistant(entry: Entry, message: EntryMessage): void {
    const groupKey = message.id ?? `line-${entry.line}`
    if (!this.emitted.has(groupKey)) {
      this.emitted.add(groupKey)
      const group = this.groups.get(groupKey) ?? [entry]
      this.modelCall(message, group)
      const toolCalls = group.flatMap((line) =>
        toolUses(line).map((block) => ({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) })),
      )
      const content = group
        .map((line) => textOf(line.message?.content))
        .filter((text) => text !== '')
        .join('\n')
      this.event('message', toolCalls.length > 0 ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content })
    }
    for (const block of toolUses(entry)) {
      this.calls.set(block.id, { name: block.name, ts: this.ts })
      this.toolUsage[block.name] = (this.toolUsage[block.name] ?? 0) + 1
      if (!this.tools.includes(block.name)) this.tools.push(block.name)
      this.event('tool.call', { call_id: block.id, name: block.name, arguments: block.input })
      const child = this.childByCall.get(block.id)
      if (child) this.items.push({ kind: 'spawn', ts: this.ts, child })
    }
  }

  /** One llm.call per message.id in the whole session; API-error lines (`<synthetic>`) are no call. */
  private modelCall(message: EntryMessage, group: Entry[]): void {
    const usage = message.id ? this.context.usages.get(message.id) : undefined
    if (!usage || !message.id || this.context.counted.has(message.id) || message.model === '<synthetic>') return
    this.context.counted.add(message.id)
    const model = message.model ?? this.model ?? 'unknown'
    const cost = costOf(model, usage, this.context.prices)
    this.totals.usage = addUsage(this.totals.usage, usage)
    this.totals.cost_usd = addCost(this.totals.cost_usd, cost)
    this.totals.steps += 1
    this.event('llm.call', {
      provider: 'anthropic',
      model,
      usage,
      cost_usd: cost,
      duration_ms: elapsed(this.previousTs, this.ts),
      finish_reason: finishReason(group),
      response_id: message.id,
    })
  }

  private user(entry: Entry, message: EntryMessage): void {
    const text = textOf(message.content)
    if (text !== '') this.event('message', { role: 'user', content: text })
    for (const block of toolResults(entry)) {
      const call = this.calls.get(block.tool_use_id)
      const output = textOf(block.content)
      this.event('tool.result', {
        call_id: block.tool_use_id,
        name: call?.name ?? 'unknown',
        ok: !block.is_error,
        output,
        truncated: false,
        duration_ms: call ? elapsed(call.ts, this.ts) : 0,
      })
      this.event('message', { role: 'tool', content: output, tool_call_id: block.tool_use_id })
    }
  }

  private start(): StreamItem {
    const { profile, label, task } = this.plan
    return {
      kind: 'event',
      ts: this.startTs,
      type: 'agent.start',
      data: {
        profile,
        model: this.model,
        label,
        task,
        tools: this.tools,
        max_steps: null,
        context_token_budget: null,
        total_token_budget: null,
      },
    }
  }

  /** A child without a transcript (its call failed) ends when the parent got the error. */
  private end(): StreamItem {
    const endTs = !this.plan.transcript && this.plan.spawn?.endEntry?.timestamp ? this.plan.spawn.endEntry.timestamp : this.ts
    const { status, terminalReason, result } = this.plan.outcome
    return {
      kind: 'event',
      ts: endTs,
      type: 'agent.end',
      data: {
        status,
        terminal_reason: terminalReason,
        result,
        summary: summaryOf(result),
        usage: this.totals.usage,
        cost_usd: this.totals.cost_usd,
        steps: this.totals.steps,
        tool_usage: this.toolUsage,
        duration_ms: elapsed(this.startTs, endTs),
      },
    }
  }
}

const elapsed = (from: string, to: string): number => Math.max(0, Date.parse(to) - Date.parse(from)) || 0

export const summaryOf = (result: string | null): string => {
  const line = (result ?? '').trim().split('\n')[0] ?? ''
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

function groupByMessage(entries: Entry[]): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>()
  for (const entry of entries) {
    const id = entry.type === 'assistant' ? entry.message?.id : null
    if (id) groups.set(id, [...(groups.get(id) ?? []), entry])
  }
  return groups
}

/** Anthropic's stop_reason as Arbor's finish_reason; early lines of a response have none yet. */
function finishReason(group: Entry[]): string {
  const reason = group
    .map((entry) => entry.message?.stop_reason)
    .filter((value) => value !== null && value !== undefined)
    .at(-1)
  if (reason === 'tool_use' || (reason === undefined && group.some((entry) => toolUses(entry).length > 0))) return 'tool_calls'
  if (reason === 'max_tokens') return 'length'
  if (reason === 'refusal') return 'content_filter'
  return reason === undefined || reason === 'end_turn' || reason === 'stop_sequence' ? 'stop' : 'other'
}

const toolUses = (entry: Entry) =>
  Array.isArray(entry.message?.content)
    ? entry.message.content.filter((block): block is Extract<ContentBlock, { type: 'tool_use' }> => block.type === 'tool_use')
    : []

const toolResults = (entry: Entry) =>
  Array.isArray(entry.message?.content)
    ? entry.message.content.filter((block): block is Extract<ContentBlock, { type: 'tool_result' }> => block.type === 'tool_result')
    : []

function insertByTime(items: StreamItem[], item: StreamItem): void {
  const time = Date.parse(item.ts)
  const index = items.findIndex((other) => Date.parse(other.ts) > time)
  items.splice(index === -1 ? items.length : index, 0, item)
}

const epoch = new Date(0).toISOString()
