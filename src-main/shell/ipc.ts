import {
  apiContract,
  exportFormatSuffix,
  type ApiNotification,
  type ApiOutputs,
  type ApiResult,
  type ExportFormatName,
} from '../core/api/contract'
import type { Dispatch } from '../core/api/dispatcher'
import { apiErrorOf } from '../core/api/errors'
import { apiMethods, ipcChannel, notificationChannel } from '../core/api/methods'
import type { AppUrlCheck } from './app-url'

/**
 * The IPC edge of the renderer API: one `ipcMain.handle` per contract method. Each request is
 * checked for its sender first, then parsed and served by the shared dispatcher.
 *
 * Electron's objects come in as parameters typed by the little this file uses, so the wiring
 * is tested in plain Node with stand-ins (the Electron binary cannot run there).
 */

/** What this file reads of an `IpcMainInvokeEvent`. */
export interface InvokeEvent {
  readonly sender: unknown
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null
}

/** What this file uses of `ipcMain`. */
export interface IpcRegistrar {
  handle(channel: string, listener: (event: InvokeEvent, input: unknown) => Promise<ApiResult<unknown>>): void
  removeHandler(channel: string): void
}

/** What this file uses of the app's `BrowserWindow`. */
export interface AppWindow {
  readonly webContents: { send(channel: string, ...args: unknown[]): void }
  isDestroyed(): boolean
}

export interface IpcOptions {
  ipcMain: IpcRegistrar
  dispatch: Dispatch
  isTrustedSender: (event: InvokeEvent) => boolean
  /** Shows a save dialog proposing `defaultName`; null when the user cancels. */
  chooseExportPath: (defaultName: string, format: ExportFormatName) => Promise<string | null>
  /** The open-folder dialog; null when the user cancels. */
  chooseFolder?: () => Promise<string | null>
  /** The open-trace dialog; null when the user cancels. */
  chooseTraceFile?: () => Promise<string | null>
}

/**
 * A request is trusted when it comes from our window's web contents, from its top frame, and
 * that frame shows the app's own renderer URL.
 */
export function createSenderCheck(getWindow: () => AppWindow | null, isAppUrl: AppUrlCheck) {
  return (event: InvokeEvent): boolean => {
    const window = getWindow()
    if (window === null || window.isDestroyed() || event.sender !== window.webContents) return false
    const frame = event.senderFrame
    return frame !== null && frame.parent === null && isAppUrl(frame.url)
  }
}

/** Registers every method's handler; returns a function that removes them. */
export function registerIpc(options: IpcOptions): () => void {
  const { ipcMain, dispatch, isTrustedSender } = options
  for (const method of apiMethods) {
    ipcMain.handle(ipcChannel(method), async (event, input) => {
      if (!isTrustedSender(event)) {
        return { ok: false, error: { code: 'invalid_request', message: `${method}: request from an untrusted sender` } }
      }
      if (method === 'exportJob') return exportJob(input, options)
      if (method === 'chooseProjectFolder' && options.chooseFolder) return chooseProjectFolder(options.chooseFolder, options)
      if (method === 'chooseTraceFile' && options.chooseTraceFile) return chooseTraceFile(options.chooseTraceFile, options)
      return dispatch(method, input)
    })
  }
  return () => {
    for (const method of apiMethods) ipcMain.removeHandler(ipcChannel(method))
  }
}

/** `exportJob` without a path asks the user where to save; cancelling exports nothing. */
async function exportJob(input: unknown, options: IpcOptions): Promise<ApiResult<unknown>> {
  const parsed = apiContract.exportJob.safeParse(input ?? {})
  // An invalid request goes to the dispatcher for its error. The renderer never picks a path
  // itself: a file is written only where the user chose in the save dialog.
  if (!parsed.success) return options.dispatch('exportJob', input)
  if (parsed.data.path !== undefined) {
    return {
      ok: false,
      error: { code: 'invalid_request', message: 'exportJob: the renderer may not choose a path; omit it to ask the user' },
    }
  }
  let path: string | null
  const format = parsed.data.format ?? 'jsonl'
  try {
    path = await options.chooseExportPath(`arbor-${fileNamePart(parsed.data.job_id)}.${exportFormatSuffix[format]}`, format)
  } catch (error) {
    console.error('[arbor] dialog failed:', error)
    return { ok: false, error: apiErrorOf(error) }
  }
  if (path === null) {
    const cancelled: ApiOutputs['exportJob'] = { path: null, lines: 0 }
    return { ok: true, value: cancelled }
  }
  return options.dispatch('exportJob', { ...parsed.data, path })
}

/** The folder dialog, then `openProject` with what the user chose (through the dispatcher, so it is parsed too). */
async function chooseProjectFolder(choose: () => Promise<string | null>, options: IpcOptions): Promise<ApiResult<unknown>> {
  const folder = await askDialog(choose)
  if (typeof folder !== 'string') return folder ?? { ok: true, value: { project: null } satisfies ApiOutputs['chooseProjectFolder'] }
  const opened = await options.dispatch('openProject', { path: folder })
  return opened.ok ? { ok: true, value: opened.value as ApiOutputs['openProject'] } : opened
}

/** The open-trace dialog, then `importTrace` of the chosen file. */
async function chooseTraceFile(choose: () => Promise<string | null>, options: IpcOptions): Promise<ApiResult<unknown>> {
  const file = await askDialog(choose)
  if (typeof file !== 'string') return file ?? { ok: true, value: { job_id: null } satisfies ApiOutputs['chooseTraceFile'] }
  const imported = await options.dispatch('importTrace', { path: file })
  return imported.ok ? { ok: true, value: { job_id: (imported.value as ApiOutputs['importTrace']).job_id } } : imported
}

/** The dialog's answer: a path, null when cancelled, or the failure as a result. */
async function askDialog(choose: () => Promise<string | null>): Promise<string | null | ApiResult<unknown>> {
  try {
    return await choose()
  } catch (error) {
    console.error('[arbor] dialog failed:', error)
    return { ok: false, error: apiErrorOf(error) }
  }
}

/** A job id made safe to put in a proposed file name. */
function fileNamePart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_')
}

/** An engine subscriber that sends each notification to the window, if it is still open. */
export function forwardNotifications(getWindow: () => AppWindow | null) {
  return (notification: ApiNotification): void => {
    const window = getWindow()
    if (window === null || window.isDestroyed()) return
    window.webContents.send(notificationChannel, notification)
  }
}
