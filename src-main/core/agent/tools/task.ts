import { z } from 'zod'
import { ToolError, defineTool } from './types'

const parameters = z.object({
  description: z.string().min(1).optional().describe('A short label for the subtask (3-7 words). Not needed with resume.'),
  prompt: z.string().min(1).describe('The complete, self-contained task for the subagent. It sees nothing of your conversation.'),
  subagent_type: z.string().min(1).optional().describe('The profile of the subagent, e.g. "explore" or "worker". Not needed with resume.'),
  resume: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The agent_id of a subagent of yours that finished (from its result envelope): it continues with its whole earlier conversation and this prompt, instead of a new subagent starting fresh.',
    ),
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
    'Delegate a self-contained subtask to a subagent with a fresh context. Returns its result envelope (status, summary, result, stats). Call it several times in one message to run subagents in parallel. With resume, a subagent of yours that finished goes on from where it was instead.',
  parameters,
  async execute({ resume, ...args }, context) {
    if (resume !== undefined) {
      if (!context.resumeChild) throw new ToolError('resuming a subagent is not available here')
      const outcome = await context.resumeChild(resume, args.prompt)
      if (!outcome.ok) throw new ToolError(`the subagent did not resume: ${outcome.error}`)
      return JSON.stringify(outcome.envelope)
    }
    const { description, subagent_type } = args
    if (!description || !subagent_type) throw new ToolError('a new subagent needs a description and a subagent_type (or give resume)')
    const outcome = await context.spawn({ ...args, description, subagent_type })
    if (!outcome.ok) throw new ToolError(`the subagent did not run: ${outcome.error}`)
    return JSON.stringify(outcome.envelope)
  },
})
