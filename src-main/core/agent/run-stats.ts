import type { ModelReply } from '../providers/collect'
import type { AgentOutcome } from '../protocol/messages'
import type { TerminalReason } from '../trace/events'
import { addCost, addUsage, emptyUsage, type Usage } from '../trace/usage'

/** Counters of one agent run, summed over every model call and tool call. */
export class RunStats {
  steps = 0
  toolCalls = 0
  readonly toolUsage: Record<string, number> = {}
  usage: Usage = emptyUsage()
  costUsd: number | null = null

  constructor(readonly model: string | null) {}

  recordModelCall(reply: Pick<ModelReply, 'usage' | 'cost_usd'>): void {
    this.steps += 1
    this.usage = addUsage(this.usage, reply.usage)
    this.costUsd = addCost(this.costUsd, reply.cost_usd)
  }

  recordToolCall(name: string): void {
    this.toolCalls += 1
    this.toolUsage[name] = (this.toolUsage[name] ?? 0) + 1
  }

  get totalTokens(): number {
    return this.usage.input_tokens + this.usage.output_tokens
  }

  outcome(ending: { status: AgentOutcome['status']; terminal_reason: TerminalReason; result: unknown; summary: string }): AgentOutcome {
    return {
      ...ending,
      usage: { ...this.usage },
      cost_usd: this.costUsd,
      steps: this.steps,
      tool_calls: this.toolCalls,
      tool_usage: { ...this.toolUsage },
      model: this.model,
    }
  }
}

const summaryLength = 300

/** The first ~300 characters of a text result, on one line. */
export function summarize(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= summaryLength ? line : `${line.slice(0, summaryLength - 1).trimEnd()}…`
}
