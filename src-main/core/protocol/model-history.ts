import type { ProviderMessage, ToolDefinition } from '../providers/types'
import type { ToSupervisor } from './messages'

/** What a `model_call` says of its request. */
export type HistoryDelta = Pick<Extract<ToSupervisor, { type: 'model_call' }>, 'history_kept' | 'messages' | 'tools'>

/**
 * A model call carries only what changed since the agent's previous call: a history grows by a
 * few messages a step, and sending it whole made each step's message (and its parsing and
 * redaction in the supervisor) grow with the length of the conversation. The agent sends how
 * many messages of its previous call are kept, then the new ones; the tools only when they
 * changed. The supervisor rebuilds the full request from its copy (already parsed and redacted).
 *
 * The agent's side. Messages are compared by identity: the loop never changes a message once it
 * is in the history, and compaction keeps the objects it keeps.
 */
export class HistorySender {
  private sent: readonly ProviderMessage[] = []
  private tools: readonly ToolDefinition[] | null = null

  /** The `model_call` fields for a request of `messages` and `tools`, remembered as sent. */
  next(messages: readonly ProviderMessage[], tools: readonly ToolDefinition[]): HistoryDelta {
    let kept = 0
    const limit = Math.min(this.sent.length, messages.length)
    while (kept < limit && this.sent[kept] === messages[kept]) kept += 1
    const sameTools = this.tools !== null && sameItems(this.tools, tools)
    this.sent = [...messages]
    this.tools = [...tools]
    return { history_kept: kept, messages: messages.slice(kept), ...(sameTools ? {} : { tools: [...tools] }) }
  }
}

/** The supervisor's side, one per agent: the agent's previous request, to apply the next call to. */
export class HistoryReceiver {
  private messages: ProviderMessage[] = []
  private tools: ToolDefinition[] = []

  /** The whole request a call stands for; an error (and nothing kept) when it refers to more than was sent. */
  apply(call: HistoryDelta): { messages: ProviderMessage[]; tools: ToolDefinition[] } | { error: string } {
    if (call.history_kept > this.messages.length) {
      const known = this.messages.length
      this.messages = []
      return { error: `the model call keeps ${call.history_kept} messages of a history of ${known}` }
    }
    this.messages = this.messages.slice(0, call.history_kept).concat(call.messages)
    if (call.tools) this.tools = call.tools
    return { messages: this.messages, tools: this.tools }
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index])
}
