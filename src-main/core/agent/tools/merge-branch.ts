import { z } from 'zod'
import { ToolError, defineTool } from './types'

export const mergeBranchName = 'merge_branch'

const parameters = z.object({
  agent_id: z.string().min(1).describe('The subagent of yours that worked in its own worktree (its envelope names its branch).'),
})

/**
 * Brings a finished worktree child's branch into this agent's folder (its working tree, not a
 * commit): the supervisor runs the merge (worktrees/worktrees.ts). On a conflict nothing is
 * applied and the result lists each conflicting file with its hunks. Offered wherever `task`
 * is (toolset.ts), since only `task` makes children with worktrees.
 */
export const mergeBranchTool = defineTool({
  name: mergeBranchName,
  description:
    "Merge the branch of a subagent of yours that ran with isolation: 'worktree' into your folder (the working tree; nothing is committed). On a conflict nothing is applied and the conflicting files are listed with their hunks.",
  parameters,
  async execute({ agent_id }, context) {
    if (!context.mergeBranch) throw new ToolError('merging a branch is not available here')
    const outcome = await context.mergeBranch(agent_id)
    if ('error' in outcome) throw new ToolError(`the branch was not merged: ${outcome.error}`)
    if (!outcome.ok) {
      const files = outcome.conflicts.map((conflict) => `${conflict.path}\n${conflict.hunks.join('\n') || '(not a text conflict)'}`)
      throw new ToolError(
        `merging ${outcome.branch} conflicts with your folder; nothing was applied. Conflicting files:\n${files.join('\n\n')}`,
      )
    }
    return JSON.stringify({ merged: outcome.branch, files: outcome.files })
  },
})
