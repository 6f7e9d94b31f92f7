import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useSandbox } from '../sandbox.testing'
import { createSeatbelt, seatbeltInvocation, seatbeltProfile } from './seatbelt'

describe('seatbeltProfile', () => {
  it('denies by default, reads everywhere, writes only under its parameters, and hides last', () => {
    expect(seatbeltProfile({ writable: 2, hidden: 1, network: false })).toBe(
      [
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
        '(allow file-write*',
        '  (subpath (param "WRITABLE_0"))',
        '  (subpath (param "WRITABLE_1"))',
        '  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")',
        '  (literal "/dev/stdout") (literal "/dev/stderr") (regex #"^/dev/fd/"))',
        '(deny file-read* file-write*',
        '  (subpath (param "HIDDEN_0")))',
        ';; No network: sockets (TCP, UDP, and unix sockets to local daemons) are denied by default.',
        '',
      ].join('\n'),
    )
  })

  it('allows the network only when the settings do, and has no deny rule with nothing to hide', () => {
    const open = seatbeltProfile({ writable: 0, hidden: 0, network: true })
    expect(open).toContain('\n(allow network*)\n')
    expect(open).not.toContain('(deny file-read*')
    expect(seatbeltProfile({ writable: 0, hidden: 0, network: false })).not.toMatch(/\(allow network/)
  })
})

describe('seatbeltInvocation', () => {
  it('passes paths as -D parameters, never inside the profile text, then the program', () => {
    const odd = '/Users/me/My "project" (v2)'
    const { args, leftoversFd } = seatbeltInvocation(
      ['/bin/bash', '-c', 'echo hi'],
      { writable: [odd], hidden: ['/Users/me/.ssh'], network: false },
      ['/private/tmp', odd],
    )
    expect(leftoversFd).toBeUndefined()
    expect(args[0]).toBe('-p')
    expect(args[1]).not.toContain(odd)
    expect(args[1]).toContain('(param "WRITABLE_1")')
    expect(args[1]).not.toContain('(param "WRITABLE_2")')
    expect(args.slice(2)).toEqual([
      '-D',
      `WRITABLE_0=${odd}`,
      '-D',
      'WRITABLE_1=/private/tmp',
      '-D',
      'HIDDEN_0=/Users/me/.ssh',
      '/bin/bash',
      '-c',
      'echo hi',
    ])
  })
})

// sandbox-exec exists only on macOS: these run there, and are skipped (with this reason) elsewhere.
describe.skipIf(process.platform !== 'darwin')('sandbox-exec, for real (macOS only)', () => {
  const files = useSandbox('arbor-seatbelt-', join(process.env.HOME ?? '/Users/Shared', 'Library', 'Caches'))
  const run = async (command: string, hidden: string[] = [], network = false): Promise<{ status: number; output: string }> => {
    const sandbox = createSeatbelt('/usr/bin/sandbox-exec', { writable: [realpathSync(files.project())], hidden, network })
    const { file, args } = sandbox.wrap(['/bin/bash', '-c', `${command} 2>&1`], { cwd: files.project(), env: process.env })
    try {
      return { status: 0, output: execFileSync(file, args, { cwd: files.project(), encoding: 'utf8' }) }
    } catch (error) {
      const failure = error as { status: number; stdout: string }
      return { status: failure.status, output: failure.stdout }
    }
  }

  it('writes in the project, not outside it', async () => {
    expect((await run('echo ok > inside.txt && cat inside.txt')).output).toBe('ok\n')
    const outside = await run(`echo pwned > ${files.outside()}/new.txt`)
    expect(outside.output).toMatch(/Operation not permitted/)
    expect(existsSync(join(files.outside(), 'new.txt'))).toBe(false)
  })

  it('cannot read a hidden path', async () => {
    const secrets = join(files.base(), 'secrets')
    await mkdir(secrets)
    await writeFile(join(secrets, 'key'), 'secret\n')
    const result = await run(`cat ${secrets}/key`, [realpathSync(secrets)])
    expect(result.output).toMatch(/Operation not permitted/)
    expect(readFileSync(join(secrets, 'key'), 'utf8')).toBe('secret\n')
  })

  it('has no network unless allowed', async () => {
    expect((await run('curl -sS --max-time 5 http://127.0.0.1:9/')).output).toMatch(/curl: \(7\)|Operation not permitted/)
  })
})
