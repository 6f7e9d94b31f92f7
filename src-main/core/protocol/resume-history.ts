import type { ProviderMessage, ToolCall } from '../providers/types'
import type { TraceEvent } from '../trace/events'

/** An agent's conversation as its loop last held it, rebuilt from the trace, and what it needs to go on. */
export interface ResumeHistory {
  /** Exactly the loop's history when it stopped: what its next model call would have started from. */
  messages: ProviderMessage[]
  /**
   * Tool results its last assistant message still waits for (it was stopped while they ran): each
   * call's recorded output if it had one, else a note that it did not finish. A provider refuses a
   * tool call without its result, so these go in before the new message.
   */
  closing: ProviderMessage[]
}

export const unfinishedToolResult = '[this tool call did not finish: the agent was stopped while it ran]'

/**
 * Replays one agent's events, in seq order, the way its loop built its history (agent/loop.ts):
 * every `message` event is a message it added (steers included), and a `context.compact` cut it
 * to the head, the note and the newest messages, in place. Errors name what does not add up
 * rather than resuming from a history the agent never had.
 */
export function rebuildHistory(
  events: readonly TraceEvent[],
  /** What a tool call that never finished is answered with (its recorded output, if any, comes first). */
  unfinished: (callId: string) => string = () => unfinishedToolResult,
): ResumeHistory | { error: string } {
  const messages: ProviderMessage[] = []
  const toolOutputs = new Map<string, string>()
  for (const event of events) {
    if (event.type === 'message') {
      const message = providerMessage(event.data)
      if (!message) return { error: `message event ${event.seq} has no usable ${event.data.role} message` }
      messages.push(message)
    } else if (event.type === 'context.compact') {
      const { before_messages: before, after_messages: after, note } = event.data
      if (before === undefined || after === undefined || note === undefined) {
        return { error: `context.compact event ${event.seq} does not say how the history was cut` }
      }
      if (before !== messages.length) {
        return { error: `context.compact event ${event.seq} cut ${before} messages, but the trace has ${messages.length} before it` }
      }
      const headLength = messages.findIndex((message) => message.role === 'user') + 1
      const kept = after - headLength - 1
      if (headLength === 0 || kept < 0 || kept > messages.length - headLength) {
        return { error: `context.compact event ${event.seq} keeps ${after} of ${before} messages, which does not fit the history` }
      }
      messages.splice(
        0,
        messages.length,
        ...messages.slice(0, headLength),
        { role: 'user', content: note },
        ...messages.slice(before - kept),
      )
    } else if (event.type === 'tool.result') {
      toolOutputs.set(event.data.call_id, event.data.output)
    }
  }
  if (messages.length === 0) return { error: 'the trace holds none of its messages' }
  return { messages, closing: closingResults(messages, toolOutputs, unfinished) }
}

function closingResults(
  messages: readonly ProviderMessage[],
  outputs: ReadonlyMap<string, string>,
  unfinished: (callId: string) => string,
): ProviderMessage[] {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant')
  const assistant = messages[lastAssistant]
  if (!assistant || assistant.role !== 'assistant' || !assistant.tool_calls) return []
  const answered = new Set(messages.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])))
  return assistant.tool_calls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({ role: 'tool', content: outputs.get(call.id) ?? unfinished(call.id), tool_call_id: call.id }))
}

/** A `message` event's data as the provider-neutral message the loop held (trace-only keys dropped). */
function providerMessage(data: Extract<TraceEvent, { type: 'message' }>['data']): ProviderMessage | null {
  switch (data.role) {
    case 'system':
    case 'user':
      return { role: data.role, content: data.content }
    case 'assistant': {
      const calls: ToolCall[] | undefined = data.tool_calls?.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }))
      return calls ? { role: 'assistant', content: data.content, tool_calls: calls } : { role: 'assistant', content: data.content }
    }
    case 'tool':
      return data.tool_call_id === undefined ? null : { role: 'tool', content: data.content, tool_call_id: data.tool_call_id }
  }
}
