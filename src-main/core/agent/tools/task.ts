import { z } from 'zod'
import { ToolError, defineTool } from './types'

const parameters = z.object({
  description: z.string().min(1).describe('A short label for the subtask (3-7 words).'),
  prompt: z.string().min(1).describe('The complete, self-contained task for the subagent. It sees nothing of your conversation.'),
  subagent_type: z.string().min(1).describe('The profile of the subagent, e.g. "explore" or "worker".'),
  model: z.enum(['main', 'light']).optional().describe("Which model the subagent uses. Default: its profile's."),
  context: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Structured context handed to the subagent as JSON (paths, findings, constraints).'),
})

/**
 * Delegates to a child agent through the supervisor. Several `task` calls in one assistant
 * message run in parallel (the loop runs a message's calls concurrently). The child's envelope
 * is the result; a denied or failed spawn is an error result.
 */
export const taskTool = defineTool({
  name: 'task',
  description:
    'Delegate a self-contained subtask to a subagent with a fresh context. Returns its result envelope (status, summary, result, stats). Call it several times in one message to run subagents in parallel.',
  parameters,
  async execute(args, context) {
    const outcome = await context.spawn(args)
    if (!outcome.ok) throw new ToolError(`the subagent did not run: ${outcome.error}`)
    return JSON.stringify(outcome.envelope)
  },
})
