import { existsSync } from 'node:fs'
import { z } from 'zod'
import { classifyCommand } from '../risk/classifier'
import { runCommand, type CommandResult } from './run-command'
import { maxToolOutputCharacters } from './truncate'
import { ToolError, defineTool, type CutOutput } from './types'

export const defaultBashTimeoutMs = 120_000
export const maxBashTimeoutMs = 600_000
/** Variables the agent process holds for its provider: a command must not print them into the trace. */
export const hiddenEnvironment = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']

const parameters = z.object({
  command: z.string().min(1).describe('The bash command to run in the project folder, e.g. "npm test 2>&1 | tail -40".'),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Stop the command after this many milliseconds. Default ${defaultBashTimeoutMs}, at most ${maxBashTimeoutMs}.`),
})

/**
 * Runs a command with bash (sh when there is none) in the project folder, as its own process
 * group: on timeout or when the agent stops, the whole group is stopped (SIGTERM, then SIGKILL),
 * and background processes still running when the command ends are stopped too. A risky command
 * (risk/classifier.ts) needs the supervisor's approval first; a denied one does not run.
 */
export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a bash command in the project folder and get its exit code and output (stdout and stderr together, cut at 50,000 characters). No terminal or stdin: use non-interactive flags. Default timeout 120 s (timeout_ms, at most 600,000). Background processes are stopped when the command ends. Risky commands (deleting, moving, sudo, git push, chmod, writing outside the project, piping a download into a shell) wait for approval and may be denied.',
  parameters,
  async execute(args, context): Promise<CutOutput> {
    const verdict = classifyCommand(args.command, context.projectDir)
    let approval = ''
    if (verdict.risky) {
      const reason = verdict.reason ?? 'risky'
      if (!context.requestApproval) throw new ToolError(`the command is risky (${reason}) and this agent cannot ask for approval; it was not run`)
      let outcome
      try {
        outcome = await context.requestApproval({ tool: 'bash', command: args.command, reason })
      } catch (error) {
        throw new ToolError(`the command was not run: ${error instanceof Error ? error.message : String(error)}`)
      }
      const by = outcome.by ?? 'the supervisor'
      if (outcome.decision !== 'approved') throw new ToolError(`the command was denied by ${by} (risky: ${reason}); it was not run`)
      approval = `[risky: ${reason}; approved by ${by}]\n`
    }
    const timeoutMs = Math.min(args.timeout_ms ?? defaultBashTimeoutMs, maxBashTimeoutMs)
    let result: CommandResult
    try {
      result = await runCommand({
        command: args.command,
        cwd: context.projectDir,
        timeoutMs,
        maxOutputCharacters: maxToolOutputCharacters,
        signal: context.signal,
        env: commandEnvironment(),
      })
    } catch (error) {
      if (!existsSync(context.projectDir)) throw new ToolError(`the command could not start: the project folder ${context.projectDir} does not exist`)
      throw new ToolError(`the command could not start: ${error instanceof Error ? error.message : String(error)}`)
    }
    const body = result.output.endsWith('\n') ? result.output.slice(0, -1) : result.output
    return { output: `${approval}${status(result, timeoutMs)}\n${body === '' && result.cut === 0 ? '(no output)' : body}`, cut: result.cut }
  },
})

function status(result: CommandResult, timeoutMs: number): string {
  const leftovers = result.stoppedLeftovers ? ' (background processes it left running were stopped)' : ''
  if (result.timedOut) return `timed out after ${timeoutMs.toLocaleString('en-US')} ms: the command and its child processes were stopped; output so far:`
  if (result.aborted) return 'stopped: the agent was stopped; the command and its child processes were stopped; output so far:'
  if (result.exitSignal) return `killed by ${result.exitSignal}${leftovers}`
  return `exit code: ${result.exitCode}${leftovers}`
}

function commandEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of hiddenEnvironment) delete env[name]
  return env
}
