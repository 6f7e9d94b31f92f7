import { existsSync, realpathSync } from 'node:fs'
import os from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * What commands must not read, even though the rest of the machine is readable: credentials under
 * the home folder, the sockets of services that act with more power than the sandbox (an SSH agent
 * signs as the user, Docker writes anywhere as root), and the job's protected paths (Arbor's own
 * data folder: settings, keys, database). Only paths that exist are returned, as real paths, since
 * a mount (bubblewrap) or a rule (Seatbelt) applies to what a path resolves to.
 */

/** Credential stores, relative to a home folder. */
export const homeSecrets = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.gnupg',
  '.kube',
  '.docker/config.json',
  '.docker/run',
  '.docker/desktop',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.password-store',
  '.local/share/keyrings',
  'Library/Keychains',
]

/** Sockets of daemons that would do for a command what the sandbox forbids it. */
export const serviceSockets = ['/run/docker.sock', '/var/run/docker.sock', '/run/containerd/containerd.sock', '/run/podman/podman.sock']

export interface HiddenPathOptions {
  /** Home folders whose secrets to hide; default: $HOME and the account's home (they can differ). */
  homes?: string[]
  /** The job's own (SandboxPolicy.protected_paths). */
  protectedPaths?: readonly string[]
  /** Where the SSH agent's socket and the session's runtime folder (its D-Bus, keyring, gpg-agent) are named. */
  env?: NodeJS.ProcessEnv
}

export function hiddenPaths(options: HiddenPathOptions = {}): string[] {
  const env = options.env ?? process.env
  const candidates = [
    ...(options.homes ?? defaultHomes()).flatMap((home) => homeSecrets.map((secret) => join(home, secret))),
    ...serviceSockets,
    ...[env.SSH_AUTH_SOCK, env.XDG_RUNTIME_DIR].filter((path): path is string => !!path && isAbsolute(path)),
    ...(options.protectedPaths ?? []).map((path) => resolve(path)),
  ]
  const real = candidates.flatMap((path) => {
    if (!existsSync(path)) return []
    try {
      return [realpathSync(path)]
    } catch {
      return []
    }
  })
  return [...new Set(real)].sort()
}

export function defaultHomes(): string[] {
  const homes = [os.homedir()]
  try {
    homes.push(os.userInfo().homedir)
  } catch {
    // No passwd entry for this uid (some containers): $HOME is all there is.
  }
  return [...new Set(homes.filter((home) => home !== ''))]
}

/** `path` is `root` or lies below it. */
export function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path)
  return fromRoot === '' || (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot))
}
