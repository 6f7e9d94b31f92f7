import { existsSync } from 'node:fs'
import { z } from 'zod'
import type { SandboxPolicy } from '../../protocol/messages'
import { classifyCommand } from '../risk/classifier'
import { runCommand, type CommandResult } from './run-command'
import { defaultSandboxPolicy, detectSandbox, networkOffNote, sandboxSettings, showsConnectionFailure, type DetectOptions, type Sandbox } from './sandbox'
import { maxToolOutputCharacters } from './truncate'
import { ToolError, defineTool, type CutOutput, type Tool } from './types'

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

export interface BashToolOptions {
  /** Where to look for the sandbox's binary (tests point it at a missing one). */
  detect?: DetectOptions
  /** Whose home secrets the sandbox hides; default $HOME and the account's home. */
  homes?: string[]
}

/**
 * Runs a command with bash (sh when there is none) in the project folder, as its own process
 * group: on timeout or when the agent stops, the whole group is stopped (SIGTERM, then SIGKILL),
 * and background processes still running when the command ends are stopped too. A risky command
 * (risk/classifier.ts) needs the supervisor's approval first; a denied one does not run.
 *
 * The OS sandbox (sandbox/) is the boundary, not the classifier: unless the job turned it off
 * (`SandboxPolicy.mode: 'off'`), every command runs in it, an approved risky one too, and when no
 * sandbox can start the command is refused with the fix. Each process group is reported through
 * `trackProcess`, so the supervisor can stop it should this agent be killed.
 */
export function createBashTool(options: BashToolOptions = {}): Tool<typeof parameters> {
  return defineTool({
    name: 'bash',
    description:
      "Run a bash command in the project folder and get its exit code and output (stdout and stderr together, cut at 50,000 characters). No terminal or stdin: use non-interactive flags. Default timeout 120 s (timeout_ms, at most 600,000). Background processes are stopped when the command ends. Commands run in a sandbox unless the job turned it off: only the project folder and a private /tmp are writable, credentials (~/.ssh, cloud and registry tokens) are hidden, and there is no network unless the job allows it. Risky commands (deleting, moving, sudo, git push, chmod, writing outside the project, piping a download into a shell) wait for approval and may be denied.",
    parameters,
    async execute(args, context): Promise<CutOutput> {
      const policy = context.sandbox ?? defaultSandboxPolicy
      const env = commandEnvironment()
      // Before asking for approval: a command that cannot run is not worth the user's decision.
      const sandbox = policy.mode === 'off' ? undefined : await openSandbox(policy, context.projectDir, env, options)
      const approval = await approve(args.command, context)
      const timeoutMs = Math.min(args.timeout_ms ?? defaultBashTimeoutMs, maxBashTimeoutMs)
      let result: CommandResult
      try {
        result = await runCommand({
          command: args.command,
          cwd: context.projectDir,
          timeoutMs,
          maxOutputCharacters: maxToolOutputCharacters,
          signal: context.signal,
          env,
          sandbox,
          onProcessGroup: context.trackProcess,
        })
      } catch (error) {
        if (!existsSync(context.projectDir)) throw new ToolError(`the command could not start: the project folder ${context.projectDir} does not exist`)
        throw new ToolError(`the command could not start: ${error instanceof Error ? error.message : String(error)}`)
      }
      const note = sandbox && !policy.network && showsConnectionFailure(result.output) ? `${networkOffNote}\n` : ''
      const body = result.output.endsWith('\n') ? result.output.slice(0, -1) : result.output
      return { output: `${approval}${status(result, timeoutMs)}\n${note}${body === '' && result.cut === 0 ? '(no output)' : body}`, cut: result.cut }
    },
  })
}

export const bashTool = createBashTool()

/** The sandbox this command runs in, or a ToolError saying why none can start and what fixes it. */
async function openSandbox(policy: SandboxPolicy, projectDir: string, env: NodeJS.ProcessEnv, options: BashToolOptions): Promise<Sandbox> {
  const availability = await detectSandbox(options.detect)
  if (!availability.available) throw new ToolError(`the command was not run: commands run in an OS sandbox, and none can start here: ${availability.reason}`)
  if (!existsSync(projectDir)) throw new ToolError(`the command could not start: the project folder ${projectDir} does not exist`)
  return availability.create(sandboxSettings(policy, projectDir, { homes: options.homes, env }))
}

/** '' for a command that is not risky; the approval line for an approved one; a ToolError otherwise. */
async function approve(command: string, context: Parameters<Tool['execute']>[1]): Promise<string> {
  const verdict = classifyCommand(command, context.projectDir)
  if (!verdict.risky) return ''
  const reason = verdict.reason ?? 'risky'
  if (!context.requestApproval) throw new ToolError(`the command is risky (${reason}) and this agent cannot ask for approval; it was not run`)
  let outcome
  try {
    outcome = await context.requestApproval({ tool: 'bash', command, reason })
  } catch (error) {
    throw new ToolError(`the command was not run: ${error instanceof Error ? error.message : String(error)}`)
  }
  const by = outcome.by ?? 'the supervisor'
  if (outcome.decision !== 'approved') throw new ToolError(`the command was denied by ${by} (risky: ${reason}); it was not run`)
  return `[risky: ${reason}; approved by ${by}]\n`
}

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
