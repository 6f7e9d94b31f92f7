import { describe, expect, it } from 'vitest'
import { findExistingFile, projectArgument } from './launch-options'

describe('projectArgument', () => {
  const dev = { defaultApp: true, cwd: '/home/user' }
  const packaged = { defaultApp: false, cwd: '/home/user' }

  it('takes the first argument after the app path when Electron runs an unpackaged app', () => {
    expect(projectArgument(['/usr/bin/electron', 'out/main/index.js', 'code/site'], dev)).toBe('/home/user/code/site')
    expect(projectArgument(['/usr/bin/electron', '.', '/srv/project'], dev)).toBe('/srv/project')
  })

  it('takes the first argument of a packaged app', () => {
    expect(projectArgument(['/opt/Arbor/arbor', '/srv/project'], packaged)).toBe('/srv/project')
  })

  it("skips Chromium and Node flags, including Playwright's `-r loader.js`", () => {
    const argv = [
      '/usr/bin/electron',
      '-r',
      '/node_modules/playwright-core/lib/server/electron/loader.js',
      '--no-sandbox',
      '--inspect=0',
      '--remote-debugging-port=0',
      'out/main/index.js',
      '/tmp/project',
    ]
    expect(projectArgument(argv, dev)).toBe('/tmp/project')
  })

  it('takes what follows `--` literally', () => {
    expect(projectArgument(['/opt/Arbor/arbor', '--', '-odd-name'], packaged)).toBe('/home/user/-odd-name')
  })

  it('gives nothing when no folder is named', () => {
    expect(projectArgument(['/usr/bin/electron', 'out/main/index.js', '--inspect=0'], dev)).toBeUndefined()
    expect(projectArgument(['/opt/Arbor/arbor'], packaged)).toBeUndefined()
  })
})

describe('findExistingFile', () => {
  it('returns the first candidate that exists, skipping unset ones', () => {
    const existing = new Set(['/b', '/c'])
    expect(findExistingFile([undefined, '/a', '/b', '/c'], (path) => existing.has(path))).toBe('/b')
    expect(findExistingFile([undefined, '/a'], (path) => existing.has(path))).toBeUndefined()
  })
})
