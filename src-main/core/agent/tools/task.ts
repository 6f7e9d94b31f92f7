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
  background: z
    .boolean()
    .optional()
    .describe(
      'Run the subagent in the background: returns at once with its agent_id; its envelope comes with await_tasks, or as a message when it ends. You cannot finish while a background subagent runs.',
    ),
  budget_tokens: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'A token budget for the subagent and its own subagents together (at most what the job has left). When it is spent they pause until the user raises it.',
    ),
  isolation: z
    .enum(['worktree'])
    .optional()
    .describe(
      'worktree: the subagent works in its own git worktree on a new branch made from your folder as it is now (uncommitted changes included); its changes are committed on that branch when it ends, and merge_branch brings them into your folder.',
    ),
})

/**
 * Delegates to a child agent through the supervisor. Several `task` calls in one assistant
 * message run in parallel (the loop runs a message's calls concurrently). The child's envelope
 * is the result; a denied or failed spawn is an error result. With `background: true` the result
 * is `{agent_id, status}` at once: `started`, or `queued`/`held` when the child waits for a slot
 * or for spawning to resume (it starts by itself then).
 */
export const taskTool = defineTool({
  name: 'task',
  description:
    'Delegate a self-contained subtask to a subagent with a fresh context. Returns its result envelope (status, summary, result, stats). Call it several times in one message to run subagents in parallel. With resume, a subagent of yours that finished goes on from where it was instead.',
  parameters,
  async execute({ resume, ...args }, context) {
    if (resume !== undefined) {
      if (!context.resumeChild) throw new ToolError('resuming a subagent is not available here')
      if (args.background) throw new ToolError('a resumed subagent does not run in the background: leave out background')
      const outcome = await context.resumeChild(resume, args.prompt)
      if (!outcome.ok) throw new ToolError(`the subagent did not resume: ${outcome.error}`)
      if ('started' in outcome) throw new ToolError('the subagent did not resume: it was started instead')
      return JSON.stringify(outcome.envelope)
    }
    const { description, subagent_type } = args
    if (!description || !subagent_type) throw new ToolError('a new subagent needs a description and a subagent_type (or give resume)')
    const outcome = await context.spawn({ ...args, description, subagent_type })
    if (!outcome.ok) throw new ToolError(`the subagent did not run: ${outcome.error}`)
    if ('started' in outcome) {
      const { agent_id, status } = outcome.started
      return JSON.stringify({ agent_id, status, note: backgroundNote[status] })
    }
    return JSON.stringify(outcome.envelope)
  },
})

const backgroundNote = {
  started: 'Running in the background. Its envelope comes with await_tasks, or as a message when it ends.',
  queued: 'Queued behind your running subagents; it starts when one ends. Its envelope comes with await_tasks, or as a message.',
  held: 'Held: spawning is paused by the user; it starts when spawning resumes. Its envelope comes with await_tasks, or as a message.',
} as const
