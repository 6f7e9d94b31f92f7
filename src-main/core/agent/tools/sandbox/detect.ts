import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { createBubblewrap } from './bubblewrap'
import { createSeatbelt } from './seatbelt'
import type { Sandbox, SandboxAvailability, SandboxSettings } from './types'

export interface DetectOptions {
  platform?: NodeJS.Platform
  /** bubblewrap's binary; default /usr/bin/bwrap, else the first `bwrap` on PATH. */
  bwrapPath?: string
  sandboxExecPath?: string
}

const optOut = `or run the job without the sandbox (the job's "no sandbox" setting)`
const probeTimeoutMs = 10_000
const cache = new Map<string, Promise<SandboxAvailability>>()

/**
 * Whether commands can run in an OS sandbox here: the binary exists and a trivial command runs
 * in it, with the same namespaces or profile real commands get (a container may forbid them,
 * a kernel may forbid unprivileged user namespaces). Asked once per binary; the answer is kept.
 * When none can start, the reason names the fix.
 */
export function detectSandbox(options: DetectOptions = {}): Promise<SandboxAvailability> {
  const platform = options.platform ?? process.platform
  if (platform === 'linux') {
    const bwrap = options.bwrapPath ?? findBubblewrap()
    return cached(`bwrap:${bwrap}`, () =>
      probe(bwrap, (settings) => createBubblewrap(bwrap, settings), {
        missing: `bubblewrap is not installed (no ${bwrap}): install it (apt-get install bubblewrap, or dnf install bubblewrap), ${optOut}`,
        failed: (why) =>
          `bubblewrap cannot create its namespaces here (${why}): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also sysctl kernel.apparmor_restrict_unprivileged_userns=0), or run Arbor where namespaces are allowed, ${optOut}`,
      }),
    )
  }
  if (platform === 'darwin') {
    const sandboxExec = options.sandboxExecPath ?? '/usr/bin/sandbox-exec'
    return cached(`sandbox-exec:${sandboxExec}`, () =>
      probe(sandboxExec, (settings) => createSeatbelt(sandboxExec, settings), {
        missing: `sandbox-exec is missing (no ${sandboxExec}; it comes with macOS), ${optOut}`,
        failed: (why) => `sandbox-exec cannot start a sandbox (${why}), for instance because Arbor itself runs in one; ${optOut}`,
      }),
    )
  }
  return Promise.resolve({ available: false, reason: `Arbor has no OS sandbox for ${platform}: ${optOut.replace(/^or /, '')}` })
}

function cached(key: string, detect: () => Promise<SandboxAvailability>): Promise<SandboxAvailability> {
  let answer = cache.get(key)
  if (!answer) cache.set(key, (answer = detect()))
  return answer
}

async function probe(
  binary: string,
  create: (settings: SandboxSettings) => Sandbox,
  messages: { missing: string; failed: (why: string) => string },
): Promise<SandboxAvailability> {
  if (!existsSync(binary)) return { available: false, reason: messages.missing }
  const sandbox = create({ writable: [], hidden: [], network: false })
  const { file, args } = sandbox.wrap(['/bin/sh', '-c', 'exit 0'], { cwd: '/', env: process.env })
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(file, args, { cwd: '/', timeout: probeTimeoutMs, encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined)
      const firstLine = stderr.trim().split('\n')[0]
      const code = (error as { code?: unknown }).code
      resolve(
        firstLine ||
          (typeof code === 'number' ? `it exited with code ${code}` : error.killed ? 'it did not finish' : String(code ?? error.message)),
      )
    })
  })
  if (failure !== undefined) return { available: false, reason: messages.failed(failure) }
  return { available: true, name: sandbox.name, create }
}

function findBubblewrap(): string {
  const folders = ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)]
  for (const folder of folders) {
    const file = join(folder, 'bwrap')
    if (existsSync(file)) return file
  }
  return '/usr/bin/bwrap'
}
