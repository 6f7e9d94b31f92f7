import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  appArguments,
  ELECTRON_DOWNLOAD_TIMEOUT_MS,
  runCommand,
  runStart,
  shortReason,
  type RunOptions,
  type RunResult,
} from './start-steps.js'

const root = path.resolve('/tmp/arbor-start-test-root')
const node = '/usr/bin/node-for-tests'
const electronDir = path.join(root, 'node_modules/electron')
const pathTxt = path.join(electronDir, 'path.txt')
const electronBinary = path.join(electronDir, 'dist/electron')
const sqliteBinding = path.join(root, 'resources/native/better_sqlite3-electron.node')
const installScript = path.join(electronDir, 'install.js')
const sqliteScript = path.join(root, 'scripts/build-electron-sqlite.sh')
const electronVite = path.join(root, 'node_modules/electron-vite/bin/electron-vite.js')

interface Call {
  command: string
  args: string[]
  options: RunOptions
}

/**
 * A fake project: a set of existing files and a runner that records each command and answers
 * from `respond` (exit 0 by default). Nothing is spawned, nothing is downloaded.
 */
function fakeProject(options: { files?: string[]; respond?: (call: Call, files: Map<string, string>) => Partial<RunResult> }) {
  const files = new Map<string, string>((options.files ?? []).map((file) => [file, file === pathTxt ? 'electron' : '']))
  const calls: Call[] = []
  const logged: string[] = []
  const failed: string[] = []
  const run = async (command: string, args: string[], runOptions: RunOptions): Promise<RunResult> => {
    const call = { command, args, options: runOptions }
    calls.push(call)
    return { code: 0, signal: null, timedOut: false, output: '', ...options.respond?.(call, files) }
  }
  const start = (extra: { argv?: string[]; cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runStart({
      root,
      env: {},
      nodePath: node,
      exists: (file) => files.has(file),
      readText: (file) => files.get(file),
      run,
      log: (line) => logged.push(line),
      fail: (line) => failed.push(line),
      ...extra,
    })
  const ran = () => calls.map((call) => [call.command, ...call.args].join(' '))
  return { files, calls, logged, failed, start, ran }
}

const everything = [pathTxt, electronBinary, sqliteBinding]
const buildCommand = `${node} ${electronVite} build --logLevel error`
const launchCommand = `${node} ${electronVite} preview --skipBuild`

describe('npm start steps', () => {
  it('builds and launches only when the Electron binary and the sqlite binding are there', async () => {
    const project = fakeProject({ files: everything })
    expect(await project.start()).toBe(0)
    expect(project.ran()).toEqual([buildCommand, launchCommand])
    expect(project.failed).toEqual([])
    expect(project.logged).toEqual([
      'arbor: Electron binary ✓',
      'arbor: better-sqlite3 for Electron ✓',
      'arbor: building …',
      'arbor: launching …',
    ])
  })

  it('exits with the app exit code', async () => {
    const project = fakeProject({
      files: everything,
      respond: (call) => (call.args.includes('preview') ? { code: 3 } : {}),
    })
    expect(await project.start()).toBe(3)
  })

  it('downloads the Electron binary when path.txt is missing, with a timeout, then goes on', async () => {
    const project = fakeProject({
      files: [sqliteBinding],
      respond: (call, files) => {
        if (call.args[0] === installScript) {
          files.set(pathTxt, 'electron')
          files.set(electronBinary, '')
        }
        return {}
      },
    })
    expect(await project.start()).toBe(0)
    expect(project.ran()).toEqual([`${node} ${installScript}`, buildCommand, launchCommand])
    expect(project.calls[0]?.options).toMatchObject({ cwd: root, capture: true, timeoutMs: ELECTRON_DOWNLOAD_TIMEOUT_MS })
    expect(ELECTRON_DOWNLOAD_TIMEOUT_MS).toBeGreaterThan(0)
    expect(project.failed).toEqual([])
  })

  it('downloads the binary when path.txt names a file that is not in dist/', async () => {
    const project = fakeProject({ files: [pathTxt, sqliteBinding], respond: () => ({ code: 1, output: 'TypeError: fetch failed' }) })
    expect(await project.start()).toBe(1)
    expect(project.ran()).toEqual([`${node} ${installScript}`])
  })

  it('stops with one sentence naming the Electron binary when the download fails, and builds nothing', async () => {
    const output = [
      'TypeError: fetch failed',
      '    at node:internal/deps/undici/undici:14976:13',
      '    at async FetchDownloader.download (file:///x/node_modules/@electron/get/dist/FetchDownloader.js:46:30)',
    ].join('\n')
    const project = fakeProject({ files: [sqliteBinding], respond: () => ({ code: 1, output }) })
    expect(await project.start()).toBe(1)
    expect(project.ran()).toEqual([`${node} ${installScript}`])
    expect(project.failed).toEqual([
      'Arbor needs the Electron binary, and downloading it failed (fetch failed): run `npm start` again on a ' +
        'machine with internet access, or use `npm run build && npx arbor serve .` to open the UI in a browser.',
    ])
    expect(project.logged).not.toContain('arbor: building …')
  })

  it('says the download timed out when it did', async () => {
    const project = fakeProject({ respond: () => ({ code: null, signal: 'SIGTERM', timedOut: true, timeoutMs: 300_000 }) })
    expect(await project.start()).toBe(1)
    expect(project.failed).toHaveLength(1)
    expect(project.failed[0]).toContain('Electron binary, and downloading it failed (timed out after 300 s)')
  })

  it('stops when the install succeeds but the binary is still missing', async () => {
    const project = fakeProject({ files: [sqliteBinding] })
    expect(await project.start()).toBe(1)
    expect(project.ran()).toEqual([`${node} ${installScript}`])
    expect(project.failed[0]).toMatch(/^Arbor needs the Electron binary, and downloading it failed \(the download finished/)
  })

  it('builds better-sqlite3 for Electron when its binding is missing, then goes on', async () => {
    const project = fakeProject({
      files: [pathTxt, electronBinary],
      respond: (call, files) => {
        if (call.command === 'bash') files.set(sqliteBinding, '')
        return {}
      },
    })
    expect(await project.start()).toBe(0)
    expect(project.ran()).toEqual([`bash ${sqliteScript}`, buildCommand, launchCommand])
    expect(project.calls[0]?.options.timeoutMs).toBeGreaterThan(0)
  })

  it('takes ARBOR_SQLITE_BINDING when it names an existing file', async () => {
    const binding = path.join(root, 'elsewhere/better_sqlite3.node')
    const project = fakeProject({ files: [pathTxt, electronBinary, binding] })
    expect(await project.start({ env: { ARBOR_SQLITE_BINDING: binding } })).toBe(0)
    expect(project.ran()).toEqual([buildCommand, launchCommand])
  })

  it('stops with its own sentence when building better-sqlite3 fails, and builds nothing', async () => {
    const output = 'gyp info it worked\ngyp ERR! stack Error: 404 response downloading https://electronjs.org/headers/x.tar.gz\n'
    const project = fakeProject({ files: [pathTxt, electronBinary], respond: () => ({ code: 1, output }) })
    expect(await project.start()).toBe(1)
    expect(project.ran()).toEqual([`bash ${sqliteScript}`])
    expect(project.failed).toHaveLength(1)
    expect(project.failed[0]).toMatch(
      /^Arbor needs better-sqlite3 built for Electron, and building it failed \(404 response downloading https:\/\/electronjs\.org\/headers\/x\.tar\.gz\): run `bash scripts\/build-electron-sqlite\.sh`/,
    )
  })

  it('stops when the build fails and does not launch', async () => {
    const project = fakeProject({ files: everything, respond: (call) => (call.args.includes('build') ? { code: 1 } : {}) })
    expect(await project.start()).toBe(1)
    expect(project.ran()).toEqual([buildCommand])
    expect(project.failed).toEqual([
      'Arbor could not be built (electron-vite build exited with code 1): fix the errors electron-vite printed above, then run `npm start` again.',
    ])
  })

  it('passes the arguments after -- to the app, folders made absolute against where npm start was typed', async () => {
    const project = fakeProject({ files: everything })
    expect(await project.start({ argv: ['../shop', '--inspect=0', '/abs/project'], cwd: '/home/me/code/arbor-sub' })).toBe(0)
    expect(project.calls.at(-1)?.args).toEqual([
      electronVite,
      'preview',
      '--skipBuild',
      '--',
      path.resolve('/home/me/code/shop'),
      '--inspect=0',
      '/abs/project',
    ])
  })

  it('dry run checks and prints the commands without running any', async () => {
    const logged: string[] = []
    const code = await runStart({
      root,
      nodePath: node,
      argv: ['/p'],
      exists: () => false,
      readText: () => undefined,
      run: () => Promise.reject(new Error('the dry run ran a command')),
      log: (line) => logged.push(line),
      dryRun: true,
    })
    expect(code).toBe(0)
    expect(logged.filter((line) => line.includes('would run'))).toEqual([
      'arbor: would run: node node_modules/electron/install.js',
      'arbor: would run: bash scripts/build-electron-sqlite.sh',
      'arbor: would run: node node_modules/electron-vite/bin/electron-vite.js build --logLevel error',
      'arbor: would run: node node_modules/electron-vite/bin/electron-vite.js preview --skipBuild -- /p',
    ])
  })
})

describe('appArguments', () => {
  it('drops a leading -- and keeps flags and empty arguments as they are', () => {
    expect(appArguments(['--', 'proj', '-r', ''], '/here')).toEqual([path.resolve('/here/proj'), '-r', ''])
    expect(appArguments([], '/here')).toEqual([])
  })
})

describe('shortReason', () => {
  it('takes the first error message, else the last line, else the fallback', () => {
    expect(shortReason('TypeError: fetch failed\n    at x (y.js:1:2)\n', 'f')).toBe('fetch failed')
    expect(shortReason('HTTPError: Response code 404 (Not Found).\n', 'f')).toBe('Response code 404 (Not Found)')
    expect(shortReason('one\ntwo\n\n', 'f')).toBe('two')
    expect(shortReason('', 'install-electron exited with code 1')).toBe('install-electron exited with code 1')
    expect(shortReason('x'.repeat(400), 'f')).toHaveLength(160)
  })
})

describe('runCommand', () => {
  it('captures output and the exit code', async () => {
    const result = await runCommand(process.execPath, ['-e', 'console.log("out"); console.error("err"); process.exit(4)'], {
      capture: true,
    })
    expect(result).toMatchObject({ code: 4, timedOut: false })
    expect(result.output).toContain('out')
    expect(result.output).toContain('err')
  })

  it('ends a command that runs past its timeout', async () => {
    const started = Date.now()
    const result = await runCommand(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { capture: true, timeoutMs: 300 })
    expect(result.timedOut).toBe(true)
    expect(result.code).not.toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('reports a command that cannot start instead of throwing', async () => {
    const result = await runCommand('/nonexistent/arbor-command', [], { capture: true })
    expect(result.error).toMatch(/ENOENT/)
  })
})

describe('scripts/start.js', () => {
  it('with ARBOR_START_DRY_RUN=1 prints its plan with the forwarded folder and runs nothing', () => {
    const script = path.resolve(import.meta.dirname, 'start.js')
    const output = execFileSync(process.execPath, [script, '--', 'some-project'], {
      cwd: '/tmp',
      env: { ...process.env, ARBOR_START_DRY_RUN: '1', INIT_CWD: '/tmp' },
      encoding: 'utf8',
    })
    expect(output).toContain('arbor: building …')
    expect(output).toContain(`electron-vite.js preview --skipBuild -- ${path.resolve('/tmp/some-project')}`)
  })
})
