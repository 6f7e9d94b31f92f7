import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages'
import type { ProviderMessage, ToolDefinition } from './types'

/** A prompt-cache breakpoint (5 minutes). Three are used: last tool, system prompt, last message block. */
export const ephemeral = { type: 'ephemeral' } as const

/**
 * System messages become the system prompt; the rest become alternating user/assistant messages
 * of blocks: tool calls are tool_use blocks, consecutive tool results one user message of
 * tool_result blocks. The last block carries a cache breakpoint so each turn reads the history
 * before it from the cache.
 */
export function toAnthropicMessages(history: ProviderMessage[]): { system: string; messages: MessageParam[] } {
  const system: string[] = []
  const messages: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = []
  const add = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return
    const last = messages.at(-1)
    if (last?.role === role) last.content.push(...blocks)
    else messages.push({ role, content: blocks })
  }
  for (const message of history) {
    if (message.role === 'system') system.push(message.content)
    else if (message.role === 'user') add('user', message.content ? [{ type: 'text', text: message.content }] : [])
    else if (message.role === 'tool') add('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content }])
    else {
      const text: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : []
      const uses = (message.tool_calls ?? []).map((call): ContentBlockParam => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: parseInput(call.arguments),
      }))
      add('assistant', [...text, ...uses])
    }
  }
  const lastBlock = messages.at(-1)?.content.at(-1)
  if (lastBlock) Object.assign(lastBlock, { cache_control: ephemeral })
  return { system: system.join('\n\n'), messages }
}

/** A malformed call is replayed as what the model sent, so it can see its mistake. */
function parseInput(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw)
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  } catch {
    // fall through
  }
  return { invalid_json: raw }
}

export const toAnthropicTool = (tool: ToolDefinition, last: boolean): Tool => ({
  name: tool.name,
  description: tool.description,
  input_schema: { type: 'object', ...tool.parameters },
  ...(last ? { cache_control: ephemeral } : {}),
})
