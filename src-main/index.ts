import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, dialog, ipcMain, Notification, session, utilityProcess } from 'electron'
import { codeCacheDir, codeCacheDirVariable } from './core/protocol/code-cache'
import { createDispatcher } from './core/api/dispatcher'
import { createEngine, type Engine } from './core/engine'
import { contentSecurityPolicy, createAppUrlCheck } from './shell/app-url'
import { FileKeyStore } from './core/settings/key-store'
import { chooseFolder, chooseSavePath, chooseTraceFile } from './shell/dialogs'
import { createSenderCheck, forwardNotifications, registerIpc } from './shell/ipc'
import { findExistingFile, projectArgument } from './shell/launch-options'
import { installApplicationMenu } from './shell/menu'
import { noticesFor } from './shell/notification-text'
import { safeStorageCipher } from './shell/safe-storage-cipher'
import { createUtilityProcessHost } from './shell/utility-host'
import { createMainWindow, guardWebContents, hardenSession } from './shell/window'

/**
 * The Electron main process: a thin shell around the engine (windows, menu, dialogs, IPC,
 * utility processes). All agent, supervisor and store logic lives in ./core and runs in Node.
 */

/** out/main: the preload, renderer and agent entries are built next to it. */
const builtDir = import.meta.dirname
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const rendererUrl = devServerUrl ?? pathToFileURL(join(builtDir, '../renderer/index.html')).href
const isAppUrl = createAppUrlCheck(rendererUrl)

let engine: Engine | null = null
let mainWindow: BrowserWindow | null = null

// A separate data folder (tests, or a second profile); the single-instance lock follows it.
if (process.env.ARBOR_USER_DATA_DIR) app.setPath('userData', resolve(process.env.ARBOR_USER_DATA_DIR))

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (mainWindow !== null) {
      if (mainWindow.isMinimized()) mainWindow.restore()
      mainWindow.focus()
    }
    const project = projectArgument(argv, { defaultApp: process.defaultApp === true, cwd: workingDirectory })
    if (project !== undefined) void openProjectAndReload(project)
  })
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, isAppUrl))
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('activate', () => {
    if (engine !== null && BrowserWindow.getAllWindows().length === 0) openWindow()
  })
  // A terminal's Ctrl-C, `kill` or a closed session quits the app the same way as its menu does:
  // every agent is ended, and every command it started, before the process goes.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => app.quit())
  app.on('will-quit', (event) => {
    if (engine === null) return
    const closing = engine
    engine = null
    event.preventDefault()
    closing
      .close()
      .catch((error: unknown) => console.error('[arbor] closing the engine failed:', error))
      .finally(() => app.quit())
  })
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      console.error('[arbor] startup failed:', error)
      dialog.showErrorBox('Arbor could not start', error instanceof Error ? error.message : String(error))
      process.exitCode = 1
      app.quit()
    })
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession, contentSecurityPolicy(devServerUrl))
  engine = createEngine({
    dbFile: join(app.getPath('userData'), 'arbor.db'),
    processHost: createUtilityProcessHost({
      fork: (modulePath, args, options) => utilityProcess.fork(modulePath, args, options),
      // The startup snapshot is Node's, not Electron's: agents start from their code cache.
      agentScript: join(builtDir, 'agent-cached.cjs'),
      env: { [codeCacheDirVariable]: codeCacheDir(app.getPath('userData')) },
    }),
    nativeBinding: sqliteBinding(),
    // SQLite's commits on a thread of their own: this thread also serves the window.
    writerWorker: join(builtDir, 'writer-worker.js'),
    keys: new FileKeyStore(join(app.getPath('userData'), 'keys.json'), safeStorageCipher),
  })
  const dispatch = createDispatcher(engine.handlers, (error) => console.error('[arbor] internal error:', error))
  registerIpc({
    ipcMain,
    dispatch,
    isTrustedSender: createSenderCheck(() => mainWindow, isAppUrl),
    chooseExportPath: (fileName, format) => chooseSavePath(mainWindow, join(app.getPath('documents'), fileName), format),
    chooseFolder: () => chooseFolder(mainWindow),
    chooseTraceFile: () => chooseTraceFile(mainWindow),
  })
  engine.subscribe(forwardNotifications(() => mainWindow))
  engine.subscribe(showSystemNotifications())
  installApplicationMenu({ openFolder: () => void openFolderFromDialog(), openTrace: () => void openTraceFromDialog() })

  const project = projectArgument(process.argv, { defaultApp: process.defaultApp === true, cwd: process.cwd() })
  if (project !== undefined) await openProject(project)
  openWindow()
}

function openWindow(): void {
  const window = createMainWindow({
    preload: join(builtDir, '../preload/index.cjs'),
    url: rendererUrl,
    icon: app.isPackaged ? join(process.resourcesPath, 'icon.png') : join(builtDir, '../../resources/icon.png'),
  })
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null
  })
  mainWindow = window
}

/** Opens a project in the engine; a failure is shown to the user and the app goes on. */
async function openProject(path: string): Promise<boolean> {
  if (engine === null) return false
  try {
    await engine.openProject(path)
    return true
  } catch (error) {
    dialog.showErrorBox('Could not open the folder', `${path}\n\n${error instanceof Error ? error.message : String(error)}`)
    return false
  }
}

/** The renderer reads the project with getState when it loads, so a reload shows the new one. */
async function openProjectAndReload(path: string): Promise<void> {
  if ((await openProject(path)) && mainWindow !== null) mainWindow.webContents.reload()
}

async function openFolderFromDialog(): Promise<void> {
  const folder = await chooseFolder(mainWindow)
  if (folder !== null) await openProjectAndReload(folder)
}

/** File ▸ Open Trace…: imports the trace or Claude Code session read-only and shows its job (the renderer selects `?job=`). */
async function openTraceFromDialog(): Promise<void> {
  const file = await chooseTraceFile(mainWindow)
  if (file === null || engine === null) return
  try {
    const { job_id } = engine.importTrace(file)
    if (mainWindow !== null) void mainWindow.loadURL(`${rendererUrl}?job=${encodeURIComponent(job_id)}`)
  } catch (error) {
    dialog.showErrorBox('Could not open the trace or session', `${file}\n\n${error instanceof Error ? error.message : String(error)}`)
  }
}

/** A system notification when a job waits for approval or ends; clicking it brings the window up. */
function showSystemNotifications() {
  const tasks = new Map<string, string>()
  const taskOf = (jobId: string): string | undefined => tasks.get(jobId)
  return ({ events }: { events: Parameters<typeof noticesFor>[0] }): void => {
    for (const event of events) if (event.type === 'job.start') tasks.set(event.job_id, event.data.task)
    if (!Notification.isSupported()) return
    for (const notice of noticesFor(events, taskOf)) {
      const notification = new Notification({ title: notice.title, body: notice.body, silent: false })
      notification.on('click', () => {
        mainWindow?.show()
        mainWindow?.focus()
      })
      notification.show()
    }
  }
}

/**
 * better-sqlite3's own binary is built for Node's ABI (the CLI, `serve` and the tests use it);
 * Electron's main process needs one built for Electron's ABI, kept apart in
 * resources/native/better_sqlite3-electron.node. On a user's machine it comes from
 * `npx @electron/rebuild -f -w better-sqlite3` (which rebuilds node_modules in place: copy
 * build/Release/better_sqlite3.node there, then reinstall better-sqlite3 for Node) or from
 * scripts/build-electron-sqlite.sh, which builds a copy and leaves node_modules alone.
 * ARBOR_SQLITE_BINDING names another file. With neither, better-sqlite3 loads its default binary.
 */
function sqliteBinding(): string | undefined {
  const fileName = 'better_sqlite3-electron.node'
  const fromEnvironment = process.env.ARBOR_SQLITE_BINDING ? resolve(process.env.ARBOR_SQLITE_BINDING) : undefined
  const binding = findExistingFile([
    fromEnvironment,
    app.isPackaged ? join(process.resourcesPath, 'native', fileName) : undefined,
    join(builtDir, '../../resources/native', fileName),
  ])
  if (fromEnvironment !== undefined && binding !== fromEnvironment) {
    console.warn(`[arbor] ARBOR_SQLITE_BINDING=${fromEnvironment} does not exist; ignoring it`)
  }
  return binding
}
