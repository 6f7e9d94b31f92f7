import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useSandbox } from '../sandbox.testing'
import { hiddenPaths, isInside } from './hidden-paths'

const files = useSandbox('arbor-hidden-')

describe('hiddenPaths', () => {
  it('lists the secrets that exist under each home and the protected paths, as real paths', async () => {
    const base = await realpath(files.base())
    const home = join(base, 'home')
    const other = join(base, 'other-home')
    await mkdir(join(home, '.ssh'), { recursive: true })
    await mkdir(join(home, '.config', 'gcloud'), { recursive: true })
    await writeFile(join(home, '.npmrc'), '//registry/:_authToken=x\n')
    await mkdir(join(base, 'real-aws'))
    await mkdir(other)
    await symlink(join(base, 'real-aws'), join(other, '.aws'))
    await writeFile(join(base, 'settings.json'), '{}')
    const hidden = hiddenPaths({
      homes: [home, other],
      protectedPaths: [join(base, 'settings.json'), join(base, 'missing.db')],
      env: { SSH_AUTH_SOCK: join(base, 'agent.sock'), XDG_RUNTIME_DIR: 'relative/ignored' },
    }).filter((path) => path.startsWith(base))
    expect(hidden).toEqual([
      join(home, '.config/gcloud'),
      join(home, '.npmrc'),
      join(home, '.ssh'),
      join(base, 'real-aws'),
      join(base, 'settings.json'),
    ])
  })

  it('hides the SSH agent’s socket and the session’s runtime folder when they exist', async () => {
    const base = await realpath(files.base())
    await writeFile(join(base, 'agent.sock'), '')
    await mkdir(join(base, 'run-user'))
    const hidden = hiddenPaths({ homes: [], env: { SSH_AUTH_SOCK: join(base, 'agent.sock'), XDG_RUNTIME_DIR: join(base, 'run-user') } })
    expect(hidden.filter((path) => path.startsWith(base))).toEqual([join(base, 'agent.sock'), join(base, 'run-user')])
  })
})

describe('isInside', () => {
  it.each([
    ['/a', '/a', true],
    ['/a', '/a/b', true],
    ['/a', '/ab', false],
    ['/a/b', '/a', false],
    ['/', '/anything', true],
  ])('%s holds %s: %s', (root, path, inside) => {
    expect(isInside(root, path)).toBe(inside)
  })
})
