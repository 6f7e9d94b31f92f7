import type { Usage } from '../trace/usage'
import { ProviderError, abortedError } from './errors'
import type { FinishReason, Provider, ProviderRequest, ToolCall } from './types'

/** One model reply, gathered from a provider's stream. */
export interface ModelReply {
  text: string
  tool_calls: ToolCall[]
  usage: Usage
  cost_usd: number | null
  finish_reason: FinishReason
}

/**
 * Runs one streaming call to its end. `onTextDelta` sees text as it arrives (for live views
 * later); the reply is returned whole. A stream that ends without `finish` is a provider error.
 */
export async function collectReply(
  provider: Provider,
  request: ProviderRequest,
  onTextDelta?: (text: string) => void,
): Promise<ModelReply> {
  let text = ''
  const toolCalls: ToolCall[] = []
  let finish: { usage: Usage; cost_usd: number | null; finish_reason: FinishReason } | undefined
  for await (const event of provider.stream(request)) {
    if (request.signal?.aborted) throw abortedError(request.signal)
    switch (event.type) {
      case 'text_delta':
        text += event.text
        onTextDelta?.(event.text)
        break
      case 'tool_call':
        toolCalls.push(event.call)
        break
      case 'finish':
        finish = { usage: event.usage, cost_usd: event.cost_usd, finish_reason: event.finish_reason }
        break
    }
  }
  if (!finish) throw new ProviderError('other', `${provider.kind} stream ended without a finish event`)
  return { text, tool_calls: toolCalls, ...finish }
}
