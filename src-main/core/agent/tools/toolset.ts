import { z } from 'zod'
import type { ToolCall, ToolDefinition } from '../../providers/types'
import { attemptCompletionName } from './attempt-completion'
import { awaitTasksName } from './await-tasks'
import { mergeBranchName } from './merge-branch'
import { maxToolOutputCharacters, truncateOutput } from './truncate'
import { ToolError, type Tool, type ToolContext } from './types'

/** The outcome of one tool call, as the model and the trace see it. */
export interface ToolCallResult {
  call_id: string
  name: string
  ok: boolean
  /** The text the model reads (an error's text starts with "Error: "). */
  output: string
  truncated: boolean
  /** The validated arguments, when they passed the schema. */
  args?: unknown
  /** An unexpected failure (a tool that threw something other than a ToolError). */
  unexpected?: string
}

/**
 * The tools one agent may use: those of `available` named in its profile's allowlist, plus
 * `attempt_completion`, which is always allowed, and `await_tasks` and `merge_branch` wherever `task`
 * is (they wait for the background children, and merge the worktree children, only `task` can
 * start). A call to anything else, or with arguments that
 * fail the schema, or that throws, gives an error result; nothing here throws.
 */
export class Toolset {
  private readonly available: Map<string, Tool>
  private readonly allowed: Tool[]

  /** `extraDescriptions` adds run-time facts to a tool's description (e.g. the profiles `task` may spawn). */
  constructor(
    available: Tool[],
    allowlist: readonly string[],
    private readonly extraDescriptions: Record<string, string | undefined> = {},
  ) {
    this.available = new Map(available.map((tool) => [tool.name, tool]))
    const names = new Set([...allowlist, attemptCompletionName, ...(allowlist.includes('task') ? [awaitTasksName, mergeBranchName] : [])])
    this.allowed = available.filter((tool) => names.has(tool.name))
  }

  get names(): string[] {
    return this.allowed.map((tool) => tool.name)
  }

  /** What the model is offered. */
  definitions(): ToolDefinition[] {
    return this.allowed.map((tool) => ({
      name: tool.name,
      description: this.extraDescriptions[tool.name] ? `${tool.description}\n\n${this.extraDescriptions[tool.name]}` : tool.description,
      parameters: tool.inputSchema ?? toJsonSchema(tool.parameters),
    }))
  }

  async run(call: ToolCall, context: ToolContext): Promise<ToolCallResult> {
    const fail = (message: string, unexpected?: string): ToolCallResult => ({
      call_id: call.id,
      name: call.name,
      ok: false,
      ...truncateOutput(`Error: ${message}`),
      ...(unexpected === undefined ? {} : { unexpected }),
    })
    const tool = this.allowed.find((candidate) => candidate.name === call.name)
    if (!tool) {
      const offered = `Available tools: ${this.names.join(', ')}.`
      return this.available.has(call.name)
        ? fail(`the tool "${call.name}" is not allowed for this agent. ${offered}`)
        : fail(`there is no tool named "${call.name}". ${offered}`)
    }
    let raw: unknown
    try {
      raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments)
    } catch (error) {
      return fail(`the arguments of ${call.name} are not valid JSON (${(error as Error).message}).`)
    }
    const parsed = tool.parameters.safeParse(raw)
    if (!parsed.success) return fail(`invalid arguments for ${call.name}:\n${z.prettifyError(parsed.error)}`)
    try {
      const returned = await tool.execute(parsed.data, context)
      const { output, cut } = typeof returned === 'string' ? { output: returned, cut: 0 } : returned
      return { call_id: call.id, name: call.name, ok: true, ...truncateOutput(output, maxToolOutputCharacters, cut), args: parsed.data }
    } catch (error) {
      if (ToolError.isInstance(error)) return { ...fail(error.message), args: parsed.data }
      const message = error instanceof Error ? error.message : String(error)
      return { ...fail(`${call.name} failed: ${message}`, `${call.name} threw: ${message}`), args: parsed.data }
    }
  }
}

/**
 * Each schema is converted once per process: the first conversion of the built-in tools costs
 * tens of ms, which the agent process spends while it waits for its agent (main.ts), not after.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>()

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const cached = jsonSchemas.get(schema)
  if (cached) return cached
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>
  jsonSchemas.set(schema, jsonSchema)
  return jsonSchema
}
