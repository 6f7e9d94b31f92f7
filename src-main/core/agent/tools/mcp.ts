import { z } from 'zod'
import type { McpToolInit } from '../../protocol/messages'
import { defineTool, ToolError, type Tool, type ToolContext } from './types'

/** What an approval shows of a call: the tool and its arguments, cut. */
const maxShownArguments = 2_000

/**
 * The agent's MCP tools (`mcp__<server>__<tool>`), one per tool the supervisor offers in `start`:
 * the model sees the server's own JSON Schema and description; the arguments are checked only to
 * be an object (the server checks the rest). Every call is risky: it waits for the job's approval
 * (ask / auto-approve / deny, like a risky bash command) unless the profile trusts the tool; the
 * supervisor then makes the call, between two listings of the project's files, so what the server
 * changed in them is recorded as the call's, as a `bash` command's is. A server's failure (not started, crashed, timed out, bad output)
 * and a result the tool marks as an error come back to the model as a tool error.
 */
export function createMcpTools(tools: readonly McpToolInit[]): Tool[] {
  return tools.map((info) =>
    defineTool({
      name: info.name,
      description: info.description || `The ${info.tool} tool of the MCP server "${info.server}".`,
      parameters: z.record(z.string(), z.unknown()),
      inputSchema: info.input_schema,
      async execute(args, context: ToolContext): Promise<string> {
        if (!context.callMcp) throw new ToolError(`${info.name}: this agent cannot reach MCP servers`)
        const approved = info.trusted ? '' : await approve(info, args, context)
        // A server may write the project's files too: they are found as a command's are (agent/changes).
        const call = () => context.callMcp!(info.server, info.tool, args)
        const { changes, recordChange } = context
        const result = changes && recordChange ? await changes.around(call, recordChange, context.commandWindow) : await call()
        if (!result.ok) throw new ToolError(result.error)
        if (result.is_error) throw new ToolError(`${info.name} returned an error: ${result.output}`)
        return `${approved}${result.output}`
      },
    }),
  )
}

async function approve(info: McpToolInit, args: Record<string, unknown>, context: ToolContext): Promise<string> {
  const reason = `MCP tool of server "${info.server}" (not trusted by the profile)`
  if (!context.requestApproval) throw new ToolError(`${info.name} needs approval and this agent cannot ask for it; it was not called`)
  const shown = JSON.stringify(args)
  const command = `${info.name} ${shown.length > maxShownArguments ? `${shown.slice(0, maxShownArguments)}…` : shown}`
  let outcome
  try {
    outcome = await context.requestApproval({ tool: info.name, command, reason })
  } catch (error) {
    throw new ToolError(`${info.name} was not called: ${error instanceof Error ? error.message : String(error)}`)
  }
  const by = outcome.by ?? 'the supervisor'
  if (outcome.decision !== 'approved') {
    const said = outcome.message ? `\nThe user says: ${outcome.message}` : ''
    throw new ToolError(`the call of ${info.name} was denied by ${by}; it was not made${said}`)
  }
  return `[${info.name} approved by ${by}]\n`
}
