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
  background: z
    .boolean()
    .optional()
    .describe(
      'Run the subagent in the background: returns at once with its agent_id; its envelope comes with await_tasks, or as a message when it ends. You cannot finish while a background subagent runs.',
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
    'Delegate a self-contained subtask to a subagent with a fresh context. Returns its result envelope (status, summary, result, stats). Call it several times in one message to run subagents in parallel.',
  parameters,
  async execute(args, context) {
    const outcome = await context.spawn(args)
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
