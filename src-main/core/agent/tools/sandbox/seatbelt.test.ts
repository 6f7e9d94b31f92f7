import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useSandbox } from '../sandbox.testing'
import { createSeatbelt, seatbeltInvocation, seatbeltProfile } from './seatbelt'

/**
 * What a Seatbelt profile decides for one operation, read as sandbox-exec reads SBPL: `(deny
 * default)` first, then every rule in order, the last one that matches wins. A rule matches when
 * one of its operations does (`file-read*` covers `file-read-data`) and it has no filter or one
 * of its filters does. Only the forms this profile may use are known: any other throws, so a
 * new rule cannot pass unread.
 */
type Sexp = string | { quoted: string } | { regex: string } | Sexp[]
interface Operation {
  op: string
  path?: string
  name?: string
  target?: 'same-sandbox' | 'other'
}

function parseProfile(text: string): Sexp[] {
  const tokens = text.replace(/;;[^\n]*/g, '').match(/#"(?:[^"\\]|\\.)*"|"(?:[^"\\]|\\.)*"|[()]|[^\s()]+/g) ?? []
  let at = 0
  const read = (): Sexp => {
    const token = tokens[at++]!
    if (token === '(') {
      const list: Sexp[] = []
      while (tokens[at] !== ')') {
        if (at >= tokens.length) throw new Error('unclosed list')
        list.push(read())
      }
      at++
      return list
    }
    if (token.startsWith('#"')) return { regex: JSON.parse(token.slice(1)) as string }
    if (token.startsWith('"')) return { quoted: JSON.parse(token) as string }
    return token
  }
  const forms: Sexp[] = []
  while (at < tokens.length) forms.push(read())
  return forms
}

function decide(profile: string, params: Record<string, string>, request: Operation): 'allow' | 'deny' {
  const text = (value: Sexp): string => {
    if (typeof value === 'object' && 'quoted' in value) return value.quoted
    if (Array.isArray(value) && value[0] === 'param' && value[1] && typeof value[1] === 'object' && 'quoted' in value[1]) {
      const name = value[1].quoted
      if (!(name in params)) throw new Error(`no -D ${name}`)
      return params[name]!
    }
    throw new Error(`not a string: ${JSON.stringify(value)}`)
  }
  const filterMatches = (filter: Sexp): boolean => {
    if (!Array.isArray(filter)) throw new Error(`not a filter: ${JSON.stringify(filter)}`)
    const [kind, argument] = filter
    switch (kind) {
      case 'subpath': {
        const root = text(argument!)
        return request.path !== undefined && (request.path === root || request.path.startsWith(`${root}/`))
      }
      case 'literal':
        return request.path === text(argument!)
      case 'regex':
        return request.path !== undefined && new RegExp((argument as { regex: string }).regex).test(request.path)
      case 'global-name':
        return request.name === text(argument!)
      case 'target':
        if (argument !== 'same-sandbox') throw new Error(`unknown target ${JSON.stringify(argument)}`)
        return request.target === 'same-sandbox'
      default:
        throw new Error(`unknown filter ${JSON.stringify(kind)}`)
    }
  }
  const opMatches = (pattern: string): boolean =>
    pattern.endsWith('*') ? request.op.startsWith(pattern.slice(0, -1)) : request.op === pattern
  let decision: 'allow' | 'deny' | undefined
  for (const form of parseProfile(profile)) {
    if (!Array.isArray(form)) throw new Error(`not a rule: ${JSON.stringify(form)}`)
    const [action, ...rest] = form
    if (action === 'version') continue
    if (action !== 'allow' && action !== 'deny') throw new Error(`unknown rule ${JSON.stringify(action)}`)
    if (rest[0] === 'default') {
      decision ??= action
      continue
    }
    const ops = rest.filter((part): part is string => typeof part === 'string')
    const filters = rest.filter((part) => typeof part !== 'string')
    // Every filter is read, whatever the operation: an unknown form or a missing parameter throws.
    const matches = filters.map(filterMatches)
    if (ops.some(opMatches) && (filters.length === 0 || matches.some(Boolean))) decision = action
  }
  if (!decision) throw new Error('the profile has no default')
  return decision
}

describe('seatbeltProfile', () => {
  const project = '/Users/me/shop'
  const params = { WRITABLE_0: project, WRITABLE_1: '/private/tmp', HIDDEN_0: `${project}/.secrets`, HIDDEN_1: '/Users/me/.ssh' }
  const closed = seatbeltProfile({ writable: 2, hidden: 2, network: false })
  const open = seatbeltProfile({ writable: 2, hidden: 2, network: true })
  const verdicts = (profile: string, requests: Record<string, Operation>) =>
    Object.fromEntries(Object.entries(requests).map(([what, request]) => [what, decide(profile, params, request)]))

  it('reads everywhere, writes only under the writable paths and a few devices, and denies what it does not name', () => {
    expect(
      verdicts(closed, {
        'read a system file': { op: 'file-read-data', path: '/etc/hosts' },
        'read a file of another project': { op: 'file-read-data', path: '/Users/me/other/notes.txt' },
        'write in the project': { op: 'file-write-data', path: `${project}/src/cart.ts` },
        'create a file in the temp folder': { op: 'file-write-create', path: '/private/tmp/build.log' },
        'write beside the project': { op: 'file-write-data', path: '/Users/me/shop-old/cart.ts' },
        'write in the home folder': { op: 'file-write-data', path: '/Users/me/.zshrc' },
        'unlink a system file': { op: 'file-write-unlink', path: '/etc/hosts' },
        'write /dev/null': { op: 'file-write-data', path: '/dev/null' },
        'write an open descriptor': { op: 'file-write-data', path: '/dev/fd/3' },
        'write a disk': { op: 'file-write-data', path: '/dev/disk0' },
        'run a program': { op: 'process-exec', path: '/bin/bash' },
        fork: { op: 'process-fork' },
        'signal its own processes': { op: 'signal', target: 'same-sandbox' },
        'signal another process': { op: 'signal', target: 'other' },
        'look up a mach service': { op: 'mach-lookup', name: 'com.apple.system.logger' },
        'load a kernel extension': { op: 'system-kext-load' },
      }),
    ).toEqual({
      'read a system file': 'allow',
      'read a file of another project': 'allow',
      'write in the project': 'allow',
      'create a file in the temp folder': 'allow',
      'write beside the project': 'deny',
      'write in the home folder': 'deny',
      'unlink a system file': 'deny',
      'write /dev/null': 'allow',
      'write an open descriptor': 'allow',
      'write a disk': 'deny',
      'run a program': 'allow',
      fork: 'allow',
      'signal its own processes': 'allow',
      'signal another process': 'deny',
      'look up a mach service': 'allow',
      'load a kernel extension': 'deny',
    })
  })

  it('hides the hidden paths from reading and writing, even inside a writable one, and keeps the keychain out of reach', () => {
    expect(
      verdicts(closed, {
        'read a hidden file in the project': { op: 'file-read-data', path: `${project}/.secrets/key` },
        'write a hidden file in the project': { op: 'file-write-data', path: `${project}/.secrets/key` },
        'list a hidden folder': { op: 'file-read-data', path: '/Users/me/.ssh' },
        'read a hidden key': { op: 'file-read-data', path: '/Users/me/.ssh/id_ed25519' },
        'read a file named like a hidden one': { op: 'file-read-data', path: '/Users/me/.ssh-config' },
        'ask securityd': { op: 'mach-lookup', name: 'com.apple.SecurityServer' },
        'ask securityd over xpc': { op: 'mach-lookup', name: 'com.apple.securityd.xpc' },
      }),
    ).toEqual({
      'read a hidden file in the project': 'deny',
      'write a hidden file in the project': 'deny',
      'list a hidden folder': 'deny',
      'read a hidden key': 'deny',
      'read a file named like a hidden one': 'allow',
      'ask securityd': 'deny',
      'ask securityd over xpc': 'deny',
    })
  })

  it('reaches the network only when the settings allow it, and never a hidden path either way', () => {
    const network = {
      'connect out': { op: 'network-outbound', path: '/private/var/run/mDNSResponder' },
      listen: { op: 'network-bind' },
      'read a hidden key': { op: 'file-read-data', path: '/Users/me/.ssh/id_ed25519' },
    }
    expect(verdicts(closed, network)).toEqual({ 'connect out': 'deny', listen: 'deny', 'read a hidden key': 'deny' })
    expect(verdicts(open, network)).toEqual({ 'connect out': 'allow', listen: 'allow', 'read a hidden key': 'deny' })
  })

  it('names a parameter for each writable and hidden path, and refuses a form it does not know', () => {
    const none = seatbeltProfile({ writable: 0, hidden: 0, network: false })
    expect(decide(none, {}, { op: 'file-write-data', path: '/tmp/x' })).toBe('deny')
    expect(decide(none, {}, { op: 'file-read-data', path: '/Users/me/.ssh/id_ed25519' })).toBe('allow')
    expect(() => decide(closed, { WRITABLE_0: project }, { op: 'file-write-data', path: project })).toThrow('no -D WRITABLE_1')
    expect(() => decide('(version 1)\n(deny default)\n(allow file-read* (vnode-type REGULAR-FILE))', {}, { op: 'file-read-data' })).toThrow(
      'unknown filter',
    )
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
