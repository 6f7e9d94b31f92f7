import { z } from 'zod'
import { ToolError, defineTool, type BackgroundChild } from './types'

export const attemptCompletionName = 'attempt_completion'

const parameters = z.object({
  result: z.string().min(1).describe('The final result of your task, complete and self-contained.'),
})

/**
 * Ends the agent: the loop takes `result` as the agent's result. Always available, but refused
 * while a background child still runs: its envelope would have nowhere to go.
 */
export const attemptCompletionTool = defineTool({
  name: attemptCompletionName,
  description: 'Finish the task and hand back your final result. Call it once, when you are done.',
  parameters,
  async execute(_args, context) {
    const running = context.background?.running() ?? []
    if (running.length > 0) throw new ToolError(backgroundStillRunning(running))
    return 'Result received.'
  },
})

/** Why an agent may not finish yet: its background children, by id and label. */
export function backgroundStillRunning(running: BackgroundChild[]): string {
  const names = running.map((child) => `${child.agent_id} ("${child.description}")`).join(', ')
  return `you cannot finish while background subagents still run: ${names}. Call await_tasks to wait for their results, then finish.`
}
