// The steps behind `npm start` (scripts/start.js): make sure the Electron binary and the
// Electron build of better-sqlite3 exist, build the app, launch it. Everything that touches the
// file system or runs a command is passed in, so the tests drive the steps without downloads.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/** The Electron zip is about 100 MB; a stalled download must not keep `npm start` waiting forever. */
export const ELECTRON_DOWNLOAD_TIMEOUT_MS = 300_000
/** Copying better-sqlite3, fetching Electron's headers and compiling: a minute or two. */
export const SQLITE_BUILD_TIMEOUT_MS = 900_000
export const SQLITE_BINDING = 'resources/native/better_sqlite3-electron.node'

const ELECTRON_VITE_BIN = 'node_modules/electron-vite/bin/electron-vite.js'
const ELECTRON_INSTALL = 'node_modules/electron/install.js'

/** The sentences `npm start` stops with; each says what is missing and what to do. */
export const messages = {
  electronMissing: (reason) =>
    `Arbor needs the Electron binary, and downloading it failed (${reason}): run \`npm start\` again on a machine ` +
    'with internet access, or use `npm run build && npx arbor serve .` to open the UI in a browser.',
  sqliteMissing: (reason) =>
    `Arbor needs better-sqlite3 built for Electron, and building it failed (${reason}): run ` +
    '`bash scripts/build-electron-sqlite.sh` on a machine with internet access and a C++ toolchain, or set ' +
    'ARBOR_SQLITE_BINDING to a better_sqlite3.node built for Electron, then run `npm start` again.',
  buildFailed: (reason) =>
    `Arbor could not be built (${reason}): fix the errors electron-vite printed above, then run \`npm start\` again.`,
}

/** Reads a text file, or undefined when it cannot be read. */
export function readTextFile(file) {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * The Electron executable electron-vite will start, or undefined when it is missing. Found the
 * way electron-vite finds it: ELECTRON_EXEC_PATH, else node_modules/electron/path.txt naming a
 * file under node_modules/electron/dist/.
 */
export function findElectronBinary({ root, env, exists, readText }) {
  if (env.ELECTRON_EXEC_PATH && exists(env.ELECTRON_EXEC_PATH)) return env.ELECTRON_EXEC_PATH
  const packageDir = path.join(root, 'node_modules', 'electron')
  const relative = readText(path.join(packageDir, 'path.txt'))
  if (!relative) return undefined
  const binary = path.join(packageDir, 'dist', relative)
  return exists(binary) ? binary : undefined
}

/** The better-sqlite3 binary for Electron's ABI the app will load, or undefined when there is none. */
export function findSqliteBinding({ root, env, exists }) {
  const candidates = [env.ARBOR_SQLITE_BINDING ? path.resolve(root, env.ARBOR_SQLITE_BINDING) : undefined, path.join(root, SQLITE_BINDING)]
  return candidates.find((candidate) => candidate !== undefined && exists(candidate))
}

/**
 * The arguments after `npm start --` as the app should get them: a leading `--` dropped, and
 * folders made absolute against the folder `npm start` was typed in (npm runs the script in the
 * package folder and passes the original one as INIT_CWD). Flags pass through unchanged.
 */
export function appArguments(argv, cwd) {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv]
  return args.map((argument) => (argument === '' || argument.startsWith('-') ? argument : path.resolve(cwd, argument)))
}

/**
 * A short reason from a failed command's output: the message of the first `Error: …` line
 * (stack frames dropped), else the last line, else the fallback. No trailing full stop.
 */
export function shortReason(output, fallback) {
  const lines = (output ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
  const errorLine = lines
    .map((line) => /^(?:gyp ERR! (?:stack )?)?(?:[A-Za-z]*Error|error): (.+)$/.exec(line)?.[1])
    .find((message) => message !== undefined)
  const reason = (errorLine ?? lines.at(-1) ?? fallback).replace(/[.\s]+$/, '')
  return reason.length > 160 ? `${reason.slice(0, 157)}...` : reason
}

function failureReason(result, what) {
  if (result.timedOut) return `timed out after ${Math.round(result.timeoutMs / 1000)} s`
  if (result.error) return result.error
  const fallback = result.signal ? `${what} was stopped by ${result.signal}` : `${what} exited with code ${result.code}`
  return shortReason(result.output, fallback)
}

/** A command as the plan prints it, with the project folder shortened to `.`. */
function describe(command, args, root, nodePath) {
  const relative = (word) => (word.startsWith(root + path.sep) ? path.relative(root, word) : word)
  return [command === nodePath ? 'node' : command, ...args.map(relative)].join(' ')
}

/**
 * Runs the four steps and resolves to the exit code for `npm start`: 1 with one sentence on
 * stderr when something is missing or the build fails, else the app's own exit code.
 * With `dryRun` it checks and prints the commands it would run, and runs none.
 *
 * run(command, args, { cwd, env, capture, timeoutMs }) resolves to
 * { code, signal, timedOut, timeoutMs, output, error }; see runCommand.
 */
export async function runStart({
  root,
  argv = [],
  cwd = root,
  env = {},
  exists = existsSync,
  readText = readTextFile,
  run = runCommand,
  log = (line) => console.log(line),
  fail = (line) => console.error(line),
  nodePath = process.execPath,
  dryRun = false,
}) {
  const stop = (sentence) => {
    fail(sentence)
    return 1
  }
  const execute = async (command, args, options) => {
    if (dryRun) {
      log(`arbor: would run: ${describe(command, args, root, nodePath)}`)
      return { code: 0, signal: null, timedOut: false, output: '' }
    }
    return run(command, args, { cwd: root, env, ...options })
  }

  // 1. The Electron binary (the electron package downloads it on first use; electron-vite does not).
  if (findElectronBinary({ root, env, exists, readText }) === undefined) {
    log('arbor: Electron binary missing; downloading it (once, about 100 MB) …')
    const install = path.join(root, ELECTRON_INSTALL)
    const result = await execute(nodePath, [install], { capture: true, timeoutMs: ELECTRON_DOWNLOAD_TIMEOUT_MS })
    if (result.code !== 0) return stop(messages.electronMissing(failureReason(result, 'install-electron')))
    if (!dryRun && findElectronBinary({ root, env, exists, readText }) === undefined) {
      return stop(messages.electronMissing('the download finished but node_modules/electron/dist has no Electron executable'))
    }
  }
  if (!dryRun) log('arbor: Electron binary ✓')

  // 2. better-sqlite3 built for Electron's ABI (node_modules keeps the Node build for the CLI and tests).
  if (findSqliteBinding({ root, env, exists }) === undefined) {
    log('arbor: building better-sqlite3 for Electron (once, a minute or two) …')
    const script = path.join(root, 'scripts', 'build-electron-sqlite.sh')
    const result = await execute('bash', [script], { capture: true, timeoutMs: SQLITE_BUILD_TIMEOUT_MS })
    if (result.code !== 0) return stop(messages.sqliteMissing(failureReason(result, 'build-electron-sqlite.sh')))
    if (!dryRun && findSqliteBinding({ root, env, exists }) === undefined) {
      return stop(messages.sqliteMissing(`the script finished but ${SQLITE_BINDING} does not exist`))
    }
  }
  if (!dryRun) log('arbor: better-sqlite3 for Electron ✓')

  // 3. Build (quick; electron-vite prints only errors).
  log('arbor: building …')
  const electronVite = path.join(root, ELECTRON_VITE_BIN)
  const build = await execute(nodePath, [electronVite, 'build', '--logLevel', 'error'], { capture: false })
  if (build.code !== 0) return stop(messages.buildFailed(failureReason(build, 'electron-vite build')))

  // 4. Launch. electron-vite preview hands everything after `--` to Electron (as ELECTRON_CLI_ARGS).
  const appArgs = appArguments(argv, cwd)
  log('arbor: launching …')
  const launch = await execute(nodePath, [electronVite, 'preview', '--skipBuild', ...(appArgs.length > 0 ? ['--', ...appArgs] : [])], {
    capture: false,
  })
  if (launch.error) return stop(`Arbor could not be started (${launch.error}): run \`npm ci\` and then \`npm start\` again.`)
  return launch.code ?? 1
}

/**
 * Runs a command and resolves when it ends (never rejects). `capture` collects stdout and
 * stderr instead of showing them; `timeoutMs` ends the command (SIGTERM, then SIGKILL) when it
 * runs too long. SIGINT, SIGTERM and SIGHUP sent to this process are passed on to the command.
 */
export function runCommand(command, args, { cwd, env, capture = false, timeoutMs } = {}) {
  return new Promise((resolve) => {
    let output = ''
    let timedOut = false
    let settled = false
    const child = spawn(command, args, { cwd, env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    const collect = (chunk) => {
      output += chunk
    }
    child.stdout?.setEncoding('utf8').on('data', collect)
    child.stderr?.setEncoding('utf8').on('data', collect)

    const signals = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP']
    const forward = (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    }
    for (const signal of signals) process.on(signal, forward)

    let killTimer
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            child.kill('SIGTERM')
            killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000)
          }, timeoutMs)

    const finish = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(killTimer)
      for (const signal of signals) process.off(signal, forward)
      resolve({ timedOut, timeoutMs, output, ...result })
    }
    child.on('error', (error) => finish({ code: null, signal: null, error: error.message }))
    child.on('close', (code, signal) => finish({ code, signal }))
  })
}
