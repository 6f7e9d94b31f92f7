import { z } from 'zod'
import type { DetectOptions } from './sandbox'
import { defineTool, type CutOutput, type Tool } from './types'

export const defaultBashTimeoutMs = 120_000
export const maxBashTimeoutMs = 600_000

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
      'Run a bash command in the project folder and get its exit code and output (stdout and stderr together, cut at 50,000 characters). No terminal or stdin: use non-interactive flags. Default timeout 120 s (timeout_ms, at most 600,000). Background processes are stopped when the command ends. Commands run in a sandbox unless the job turned it off: only the project folder and a private /tmp are writable, credentials (~/.ssh, cloud and registry tokens) are hidden, and there is no network unless the job allows it. Risky commands (deleting, moving, sudo, git push, chmod, writing outside the project, piping a download into a shell) wait for approval and may be denied.',
    parameters,
    async execute(args, context): Promise<CutOutput> {
      // The risk classifier, the sandbox and the command runner are loaded on the first command,
      // not by every agent process at start.
      const { runBash } = await import('./bash-run')
      return runBash(args, context, options)
    },
  })
}

export const bashTool = createBashTool()
