import { z } from 'zod'
import { ToolError, defineTool } from './types'

export const awaitTasksName = 'await_tasks'

/** An hour: longer than that, a parent should do something else meanwhile and await again. */
const maxTimeoutSeconds = 3600

const parameters = z.object({
  agent_ids: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('The background subagents to wait for (their agent_id). Default: any of yours.'),
  timeout_s: z
    .number()
    .positive()
    .max(maxTimeoutSeconds)
    .optional()
    .describe(`Give up waiting after this many seconds (at most ${maxTimeoutSeconds}). Default: wait until one ends.`),
})

/**
 * Waits for the agent's background children (`task` with `background: true`): returns once one
 * of those named (default: any) has ended, with the envelopes of every such child not handed out
 * before, and the ones still running. Offered wherever `task` is (toolset.ts). Ids that are not
 * this agent's background children are an error, as is waiting with none to wait for.
 */
export const awaitTasksTool = defineTool({
  name: awaitTasksName,
  description:
    'Wait for background subagents (started with task and background: true) to end. Returns the result envelopes of those that ended, and the ids still running.',
  parameters,
  async execute(args, context) {
    const background = context.background
    const known = background?.known() ?? []
    if (!background || known.length === 0) {
      throw new ToolError('you have no background subagents to wait for (start one with task and background: true)')
    }
    const unknown = (args.agent_ids ?? []).filter((id) => !known.some((child) => child.agent_id === id))
    if (unknown.length > 0) {
      const yours = known.map((child) => `${child.agent_id} (${child.description})`).join(', ')
      throw new ToolError(`${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not your background subagent; yours: ${yours}`)
    }
    const named = (id: string): boolean => args.agent_ids === undefined || args.agent_ids.includes(id)
    if (!background.running().some((child) => named(child.agent_id))) {
      // Already ended and handed out: nothing will come for these ids.
      const ready = background.wait(args.agent_ids, 0, context.signal)
      const envelopes = await ready
      if (envelopes.length === 0) throw new ToolError('those background subagents have ended and their results were already given to you')
      return JSON.stringify({ ended: envelopes, still_running: [] })
    }
    const timeoutMs = args.timeout_s === undefined ? undefined : args.timeout_s * 1000
    const ended = await background.wait(args.agent_ids, timeoutMs, context.signal)
    if (context.signal?.aborted) throw new ToolError('the agent was stopped while waiting')
    const stillRunning = background.running().filter((child) => named(child.agent_id))
    return JSON.stringify({
      ended,
      still_running: stillRunning,
      ...(ended.length === 0 ? { note: `none ended within ${args.timeout_s} s` } : {}),
    })
  },
})
