import { z } from 'zod'
import { defineTool } from './types'

export const attemptCompletionName = 'attempt_completion'

const parameters = z.object({
  result: z.string().min(1).describe('The final result of your task, complete and self-contained.'),
})

/** Ends the agent: the loop takes `result` as the agent's result. Always available. */
export const attemptCompletionTool = defineTool({
  name: attemptCompletionName,
  description: 'Finish the task and hand back your final result. Call it once, when you are done.',
  parameters,
  async execute() {
    return 'Result received.'
  },
})
