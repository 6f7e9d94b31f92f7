import { realpathSync } from 'node:fs'
import os from 'node:os'
import type { Sandbox, SandboxSettings, WrappedCommand } from './types'

/**
 * The macOS sandbox: `sandbox-exec -p <profile>` with a Seatbelt (SBPL) profile that denies by
 * default, then allows running programs, reading files, and writing only under the writable
 * paths, the temp folders and a few devices; the hidden paths are denied for reading and writing
 * after that (in SBPL the last matching rule wins). Network is allowed only when the settings say
 * so, all of it (this machine's servers included) or none.
 *
 * Paths reach the profile as parameters (`-D WRITABLE_0=/path`, `(subpath (param "WRITABLE_0"))`)
 * rather than inside its text, so no path needs quoting. Seatbelt has no PID namespace: a process
 * that leaves the process group with `setsid` is not stopped with it (as without a sandbox).
 * Unlike bubblewrap, /tmp is the host's; and mach services are all allowed (a narrower list would
 * need a Mac to test against). Written without a Mac to run it on: the unit tests check the text,
 * and the real-run tests run only on darwin.
 */
export function createSeatbelt(sandboxExecPath: string, settings: SandboxSettings, tempFolders = defaultTempFolders()): Sandbox {
  return {
    name: 'sandbox-exec',
    wrap: (argv) => ({ file: sandboxExecPath, ...seatbeltInvocation(argv, settings, tempFolders) }),
  }
}

export function seatbeltInvocation(
  argv: readonly string[],
  settings: SandboxSettings,
  tempFolders: readonly string[],
): Omit<WrappedCommand, 'file'> {
  const writable = [...new Set([...settings.writable, ...tempFolders])]
  const parameters = [
    ...writable.map((path, index) => [`WRITABLE_${index}`, path] as const),
    ...settings.hidden.map((path, index) => [`HIDDEN_${index}`, path] as const),
  ]
  const profile = seatbeltProfile({ writable: writable.length, hidden: settings.hidden.length, network: settings.network })
  return { args: ['-p', profile, ...parameters.flatMap(([name, value]) => ['-D', `${name}=${value}`]), ...argv] }
}

/** The profile's text, with `writable` and `hidden` parameters (WRITABLE_0…, HIDDEN_0…). */
export function seatbeltProfile(counts: { writable: number; hidden: number; network: boolean }): string {
  const paths = (name: string, count: number): string =>
    Array.from({ length: count }, (_unused, index) => `\n  (subpath (param "${name}_${index}"))`).join('')
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow process-info* (target same-sandbox))',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    ';; The keychain is reached through securityd, not its files.',
    '(deny mach-lookup (global-name "com.apple.SecurityServer") (global-name "com.apple.securityd.xpc"))',
    '(allow ipc-posix-shm ipc-posix-sem)',
    '(allow user-preference-read)',
    '(allow pseudo-tty)',
    '(allow file-ioctl)',
    '(allow file-read*)',
    `(allow file-write*${paths('WRITABLE', counts.writable)}\n  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")\n  (literal "/dev/stdout") (literal "/dev/stderr") (regex #"^/dev/fd/"))`,
    ...(counts.hidden > 0 ? [`(deny file-read* file-write*${paths('HIDDEN', counts.hidden)})`] : []),
    counts.network ? '(allow network*)' : ';; No network: sockets (TCP, UDP, and unix sockets to local daemons) are denied by default.',
    '',
  ].join('\n')
}

/** /tmp, /var/tmp and $TMPDIR (a per-user folder under /var/folders), as real paths. */
function defaultTempFolders(): string[] {
  return [
    ...new Set(
      ['/tmp', '/var/tmp', os.tmpdir()].flatMap((path) => {
        try {
          return [realpathSync(path)]
        } catch {
          return []
        }
      }),
    ),
  ]
}
