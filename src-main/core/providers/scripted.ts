import type { ScriptTurn } from '../trace/model'
import type { Usage } from '../trace/usage'
import { abortedError } from './errors'
import type { Provider, ProviderEvent, ProviderRequest, Sleep, ToolCall } from './types'

export const scriptFinishedText = '(script finished)'

export interface ScriptedProviderOptions {
  model: string
  script: ScriptTurn[]
  sleep: Sleep
}

/**
 * Deterministic replies for the demo and for tests: call i waits turn i's `delay_ms`, then
 * answers with its text and tool calls (ids `call_<call number>_<index>`). Past the end of the
 * script it answers "(script finished)". Usage is an honest estimate (4 characters a token) and
 * the scripted model costs nothing.
 */
export function createScriptedProvider(options: ScriptedProviderOptions): Provider {
  let calls = 0
  return {
    kind: 'scripted',
    model: options.model,
    stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
      calls += 1
      const turn = options.script[calls - 1] ?? { text: scriptFinishedText }
      return replay(turn, calls, request, options.sleep)
    },
  }
}

async function* replay(turn: ScriptTurn, step: number, request: ProviderRequest, sleep: Sleep): AsyncGenerator<ProviderEvent> {
  const { signal } = request
  if (signal?.aborted) throw abortedError(signal)
  if (turn.delay_ms) {
    try {
      await sleep(turn.delay_ms, signal)
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal)
      throw error
    }
  }
  const toolCalls: ToolCall[] = (turn.tool_calls ?? []).map((call, index) => ({
    id: `call_${step}_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }))
  const text = turn.text ?? ''
  if (text) yield { type: 'text_delta', text }
  for (const call of toolCalls) yield { type: 'tool_call', call }
  yield {
    type: 'finish',
    usage: estimateUsage(request, text, toolCalls),
    cost_usd: 0,
    finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  }
}

const tokensFor = (characters: number): number => Math.ceil(characters / 4)

const callCharacters = (calls: ToolCall[] | undefined): number =>
  (calls ?? []).reduce((sum, call) => sum + call.name.length + call.arguments.length, 0)

/**
 * The tools' JSON length, by array: an agent sends the same tools with every call (the
 * supervisor keeps one array until they change), and stringifying them was the largest part of
 * a scripted call.
 */
const toolCharacters = new WeakMap<object, number>()
const toolsLength = (tools: ProviderRequest['tools']): number => {
  let length = toolCharacters.get(tools)
  if (length === undefined) toolCharacters.set(tools, (length = JSON.stringify(tools).length))
  return length
}

/** About 4 characters a token, counting everything the request and the reply carry. */
export function estimateUsage(request: ProviderRequest, text: string, toolCalls: ToolCall[]): Usage {
  let requestCharacters = toolsLength(request.tools)
  for (const message of request.messages) {
    requestCharacters += message.content.length
    if (message.role === 'assistant') requestCharacters += callCharacters(message.tool_calls)
  }
  return {
    input_tokens: tokensFor(requestCharacters),
    output_tokens: tokensFor(text.length + callCharacters(toolCalls)),
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  }
}
