import { existsSync } from 'node:fs'
import type { SandboxPolicy } from '../../protocol/messages'
import { classifyCommand } from '../risk/classifier'
import { providerKeyVariables } from '../../secrets/redact'
import { defaultBashTimeoutMs, maxBashTimeoutMs, type BashToolOptions } from './bash'
import { runCommand, type CommandResult } from './run-command'
import { defaultSandboxPolicy, detectSandbox, networkOffNote, sandboxSettings, showsConnectionFailure, type Sandbox } from './sandbox'
import { groupDigits } from '../../digits'
import { maxToolOutputCharacters } from './truncate'
import { ToolError, type CutOutput, type Tool, type ToolContext } from './types'

/** The bash tool's work (bash.ts), loaded on its first command. */
export async function runBash(
  args: { command: string; timeout_ms?: number },
  context: ToolContext,
  options: BashToolOptions,
): Promise<CutOutput> {
  const policy = context.sandbox ?? defaultSandboxPolicy
  const env = commandEnvironment()
  // Before asking for approval: a command that cannot run is not worth the user's decision.
  const sandbox = policy.mode === 'off' ? undefined : await openSandbox(policy, context.projectDir, env, options)
  const approval = await approve(args.command, context)
  const timeoutMs = Math.min(args.timeout_ms ?? defaultBashTimeoutMs, maxBashTimeoutMs)
  let result: CommandResult
  const run = (): Promise<CommandResult> =>
    runCommand({
      command: args.command,
      cwd: context.projectDir,
      timeoutMs,
      maxOutputCharacters: maxToolOutputCharacters,
      signal: context.signal,
      env,
      sandbox,
      onProcessGroup: context.trackProcess,
    })
  try {
    // The files it changed are found by comparing the project before and after (agent/changes).
    const { changes, recordChange } = context
    result = changes && recordChange ? await changes.around(run, recordChange, context.commandWindow) : await run()
  } catch (error) {
    if (!existsSync(context.projectDir))
      throw new ToolError(`the command could not start: the project folder ${context.projectDir} does not exist`)
    throw new ToolError(`the command could not start: ${error instanceof Error ? error.message : String(error)}`)
  }
  const note = sandbox && !policy.network && showsConnectionFailure(result.output) ? `${networkOffNote}\n` : ''
  const body = result.output.endsWith('\n') ? result.output.slice(0, -1) : result.output
  return {
    output: `${approval}${status(result, timeoutMs)}\n${note}${body === '' && result.cut === 0 ? '(no output)' : body}`,
    cut: result.cut,
  }
}

/** The sandbox this command runs in, or a ToolError saying why none can start and what fixes it. */
async function openSandbox(policy: SandboxPolicy, projectDir: string, env: NodeJS.ProcessEnv, options: BashToolOptions): Promise<Sandbox> {
  const availability = await detectSandbox(options.detect)
  if (!availability.available)
    throw new ToolError(`the command was not run: commands run in an OS sandbox, and none can start here: ${availability.reason}`)
  if (!existsSync(projectDir)) throw new ToolError(`the command could not start: the project folder ${projectDir} does not exist`)
  return availability.create(sandboxSettings(policy, projectDir, { homes: options.homes, env }))
}

/** '' for a command that is not risky; the approval line for an approved one; a ToolError otherwise. */
async function approve(command: string, context: Parameters<Tool['execute']>[1]): Promise<string> {
  const verdict = classifyCommand(command, context.projectDir)
  if (!verdict.risky) return ''
  const reason = verdict.reason ?? 'risky'
  if (!context.requestApproval)
    throw new ToolError(`the command is risky (${reason}) and this agent cannot ask for approval; it was not run`)
  let outcome
  try {
    outcome = await context.requestApproval({ tool: 'bash', command, reason })
  } catch (error) {
    throw new ToolError(`the command was not run: ${error instanceof Error ? error.message : String(error)}`)
  }
  const by = outcome.by ?? 'the supervisor'
  if (outcome.decision !== 'approved') {
    const said = outcome.message ? `\nThe user says: ${outcome.message}` : ''
    throw new ToolError(`the command was denied by ${by} (risky: ${reason}); it was not run${said}`)
  }
  return `[risky: ${reason}; approved by ${by}]\n`
}

function status(result: CommandResult, timeoutMs: number): string {
  const leftovers = result.stoppedLeftovers ? ' (background processes it left running were stopped)' : ''
  if (result.timedOut)
    return `timed out after ${groupDigits(timeoutMs)} ms: the command and its child processes were stopped; output so far:`
  if (result.aborted) return 'stopped: the agent was stopped; the command and its child processes were stopped; output so far:'
  if (result.exitSignal) return `killed by ${result.exitSignal}${leftovers}`
  return `exit code: ${result.exitCode}${leftovers}`
}

function commandEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of providerKeyVariables) delete env[name]
  return env
}
