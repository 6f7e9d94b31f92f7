/**
 * The one interface every OS sandbox implements (bubblewrap on Linux, Seatbelt on macOS): it
 * turns a program invocation into one that runs the same program confined. Which one exists,
 * and whether it can start, is `detectSandbox`'s question (detect.ts).
 */

/** What a sandbox lets commands do: fixed when the sandbox is made, the same for every command. */
export interface SandboxSettings {
  /** Real paths commands may write (the project folder); everything else is read-only. */
  writable: string[]
  /** Real, existing paths commands must not read (secrets, Arbor's data): they look empty. */
  hidden: string[]
  /** Commands may reach the network, this machine's servers included. */
  network: boolean
}

export interface WrapOptions {
  cwd: string
  env: NodeJS.ProcessEnv
}

/** What to spawn instead of the original program. */
export interface WrappedCommand {
  file: string
  args: string[]
  /**
   * A file descriptor on which the sandbox writes a line when the program left processes running
   * at its end. Set by sandboxes that stop those processes themselves, before the caller could see
   * them in the process group (bubblewrap's PID namespace ends with its first process).
   */
  leftoversFd?: number
}

export interface Sandbox {
  /** For messages: "bubblewrap", "sandbox-exec". */
  readonly name: string
  /** `argv` (program and its arguments) run inside the sandbox, in `cwd`, with `env`. */
  wrap(argv: readonly string[], options: WrapOptions): WrappedCommand
}

/** Whether a sandbox can start here: a way to make one, or why not and what fixes it. */
export type SandboxAvailability =
  { available: true; name: string; create(settings: SandboxSettings): Sandbox } | { available: false; reason: string }
