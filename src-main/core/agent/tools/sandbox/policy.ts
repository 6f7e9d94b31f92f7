import { realpathSync } from 'node:fs'
import type { SandboxPolicy } from '../../../protocol/messages'
import { hiddenPaths } from './hidden-paths'
import type { SandboxSettings } from './types'

/** A context without a policy (tests, older callers) gets the strict one. */
export const defaultSandboxPolicy: SandboxPolicy = { mode: 'sandboxed', network: false, protected_paths: [] }

export interface SettingsOptions {
  /** Whose home secrets to hide; default $HOME and the account's home (hidden-paths.ts). */
  homes?: string[]
  /** The command's environment, for the SSH agent's socket and the session's runtime folder. */
  env?: NodeJS.ProcessEnv
}

/** The job's policy for a command run in `projectDir`: only the project is writable. Throws when the project is missing. */
export function sandboxSettings(policy: SandboxPolicy, projectDir: string, options: SettingsOptions = {}): SandboxSettings {
  return {
    writable: [realpathSync(projectDir)],
    hidden: hiddenPaths({ homes: options.homes, protectedPaths: policy.protected_paths, env: options.env }),
    network: policy.network,
  }
}
