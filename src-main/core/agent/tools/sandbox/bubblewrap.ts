import { lstatSync, statSync } from 'node:fs'
import { isInside } from './hidden-paths'
import type { Sandbox, SandboxSettings, WrapOptions, WrappedCommand } from './types'

/**
 * The Linux sandbox: bubblewrap (bwrap) runs the command in new mount, PID, IPC and UTS
 * namespaces (and network, unless allowed):
 *
 * - the whole file system read-only (`--ro-bind / /`), the writable paths (the project) bound
 *   read-write over it, a private /tmp, a fresh /dev and a /proc that shows only the sandbox's
 *   own processes (no other process's environment or command line);
 * - each hidden path covered by an empty tmpfs (folders) or /dev/null (files, sockets; bwrap mounts
 *   without devices, so opening one fails with "Permission denied");
 * - without network: no interface but its own loopback, and an empty /run, so neither this
 *   machine's TCP servers nor the daemons' sockets in /run are reachable.
 *
 * Mount order matters, since a later mount covers an earlier one: hidden paths outside the
 * writable ones first, then the writable ones, then the hidden paths inside them. So a protected
 * path inside the project stays hidden, and a project inside a hidden folder stays usable (only
 * the project, not the rest of that folder; the user chose to work there). Paths are real paths.
 *
 * Processes: the sandbox's first process is a small reaper shell (`reaper` below) that runs the
 * command; when it exits the kernel kills everything left in the PID namespace, even processes
 * that left the process group with `setsid`. `--die-with-parent` makes it exit when bwrap does, so
 * killing bwrap's process group (timeout, abort, the supervisor cleaning up after a killed agent)
 * ends the whole sandbox. `--new-session` is not used: the command already runs in a session of
 * its own with no terminal (run-command.ts), so there is no terminal to inject input into, and a
 * new session inside would take the command out of the process group that is signalled.
 *
 * Inside, the command sees the same environment (HOME is the real home, read-only), and as root
 * it has no capabilities (bwrap drops them), so it cannot remount anything.
 */
export function createBubblewrap(bwrapPath: string, settings: SandboxSettings): Sandbox {
  return {
    name: 'bubblewrap',
    wrap: (argv, options) => ({ file: bwrapPath, ...bubblewrapInvocation(argv, settings, options) }),
  }
}

/** Folders that get a private, empty tmpfs: nothing of the host's is visible in them. */
const privateFolders = (network: boolean): string[] => (network ? ['/tmp'] : ['/tmp', '/run'])

/** The fd on which the reaper reports leftovers (stdin, stdout, stderr are 0 to 2). */
export const leftoversFd = 3

/**
 * PID 1 in the sandbox: runs the command (its arguments, `"$@"`) without fd 3, then looks for
 * processes other than itself that are still running (zombies do not count) and, when there are,
 * says so on fd 3, since they die with it before anyone outside could see them. It exits with the
 * command's status; a command killed by a signal gives 128 + the signal number, as in a shell.
 * Only shell builtins run after the command, so the reaper starts nothing that would count.
 */
export const reaper = [
  // The reaper's own messages (a shell reports "Terminated" when a command it waits for is
  // killed) go nowhere; the command, exec'd in a subshell, gets the real stderr back.
  'exec 4>&2 2>/dev/null',
  `( exec "$@" 2>&4 4>&- ${leftoversFd}>&- )`,
  'status=$?',
  'for entry in /proc/[0-9]*; do',
  '  [ "${entry#/proc/}" = 1 ] && continue',
  '  read -r stat < "$entry/stat" 2>/dev/null || continue',
  `  case "\${stat##*) }" in Z*) ;; *) echo leftovers >&${leftoversFd}; break ;; esac`,
  'done',
  'exit $status',
].join('\n')

export function bubblewrapInvocation(
  argv: readonly string[],
  settings: SandboxSettings,
  options: Pick<WrapOptions, 'cwd'>,
): Omit<WrappedCommand, 'file'> {
  const privates = privateFolders(settings.network)
  const insideWritable = (path: string): boolean => settings.writable.some((root) => isInside(root, path))
  // A hidden path in a private folder is invisible already, unless a writable path brings it back.
  const visible = settings.hidden.filter((path) => insideWritable(path) || !privates.some((folder) => isInside(folder, path)))
  const hideOutside = visible.filter((path) => !settings.writable.some((root) => isInside(root, path) && root !== path))
  const hideInside = visible.filter((path) => !hideOutside.includes(path))
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--as-pid-1',
    '--unshare-ipc',
    '--unshare-uts',
    ...(settings.network ? [] : ['--unshare-net']),
    ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'],
    ...privates.flatMap((folder) => (existsAsFolder(folder) ? ['--tmpfs', folder] : [])),
    ...hideOutside.flatMap(hide),
    ...settings.writable.flatMap((path) => ['--bind', path, path]),
    ...settings.writable.flatMap(gitControlFiles).flatMap((path) => ['--ro-bind', path, path]),
    ...hideInside.flatMap(hide),
    ...['--chdir', options.cwd],
    '--',
    '/bin/sh',
    '-c',
    reaper,
    'arbor-sandbox', // the reaper's $0
    ...argv,
  ]
  return { args, leftoversFd }
}

/**
 * A repository's hooks and config stay read-only inside the sandbox: what a command wrote there
 * would run later, outside it, the next time the user runs git (a pre-commit hook, core.pager,
 * core.fsmonitor). Commits, branches and the index stay writable.
 */
function gitControlFiles(root: string): string[] {
  return ['.git/hooks', '.git/config']
    .map((name) => `${root}/${name}`)
    .filter((path) => {
      try {
        return !lstatSync(path).isSymbolicLink()
      } catch {
        return false
      }
    })
}

/** An empty tmpfs over a folder, /dev/null over anything else. */
function hide(path: string): string[] {
  return existsAsFolder(path) ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]
}

function existsAsFolder(path: string): boolean {
  try {
    // A symlinked /run (or /var/run) is covered through its target, which is also listed when it matters.
    return !lstatSync(path).isSymbolicLink() && statSync(path).isDirectory()
  } catch {
    return false
  }
}
