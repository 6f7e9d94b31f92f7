import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import type { ApiInput, ApiMethod, ApiNotification, ApiOutputs, ApiResult, ArborBridge } from '@core/api/contract'
import { ipcChannel, notificationChannel } from '@core/api/methods'

/**
 * The sandboxed preload (built to CommonJS): exposes exactly one object, `window.arbor`, with
 * one function per API method and a subscription. Nothing else of IPC reaches the renderer.
 * Only types come from the contract, so zod stays out of this bundle.
 *
 * A method resolves to its ApiResult, a failure included, rather than throwing: contextBridge
 * passes an Error's message and nothing else, so `code` and a refused form's `fields` cross as
 * data, and the renderer's client (src-renderer/src/api/bridge-client.ts) throws them as an
 * ApiFailure.
 */

async function call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiResult<ApiOutputs[M]>> {
  try {
    return (await ipcRenderer.invoke(ipcChannel(method), input)) as ApiResult<ApiOutputs[M]>
  } catch {
    // The main process threw past its handler (none registered, the window closing): no details cross.
    return { ok: false, error: { code: 'internal', message: `${method} could not reach Arbor's main process` } }
  }
}

const api = {
  getState: (input) => call('getState', input),
  openProject: (input) => call('openProject', input),
  closeProject: (input) => call('closeProject', input),
  listRecentProjects: (input) => call('listRecentProjects', input),
  completePath: (input) => call('completePath', input),
  chooseProjectFolder: (input) => call('chooseProjectFolder', input),
  chooseTraceFile: (input) => call('chooseTraceFile', input),
  listProfiles: (input) => call('listProfiles', input),
  listMcpServers: (input) => call('listMcpServers', input),
  getJobDefaults: (input) => call('getJobDefaults', input),
  listJobs: (input) => call('listJobs', input),
  startJob: (input) => call('startJob', input),
  getTree: (input) => call('getTree', input),
  getEvents: (input) => call('getEvents', input),
  getTimeline: (input) => call('getTimeline', input),
  getReplayEvents: (input) => call('getReplayEvents', input),
  getChanges: (input) => call('getChanges', input),
  getFileDiff: (input) => call('getFileDiff', input),
  revertChanges: (input) => call('revertChanges', input),
  setSpawnPaused: (input) => call('setSpawnPaused', input),
  killAgent: (input) => call('killAgent', input),
  stopAgent: (input) => call('stopAgent', input),
  cancelSpawn: (input) => call('cancelSpawn', input),
  allowSpawn: (input) => call('allowSpawn', input),
  restartAgent: (input) => call('restartAgent', input),
  retryNow: (input) => call('retryNow', input),
  setAutoApprove: (input) => call('setAutoApprove', input),
  setSubagentApprovals: (input) => call('setSubagentApprovals', input),
  revokeApprovedCommand: (input) => call('revokeApprovedCommand', input),
  steerAgent: (input) => call('steerAgent', input),
  followUp: (input) => call('followUp', input),
  resumeJob: (input) => call('resumeJob', input),
  editSpawn: (input) => call('editSpawn', input),
  setBudget: (input) => call('setBudget', input),
  decideApproval: (input) => call('decideApproval', input),
  exportJob: (input) => call('exportJob', input),
  importTrace: (input) => call('importTrace', input),
  getSettings: (input) => call('getSettings', input),
  setProviderKey: (input) => call('setProviderKey', input),
  clearProviderKey: (input) => call('clearProviderKey', input),
  setProviderConfig: (input) => call('setProviderConfig', input),
  testConnection: (input) => call('testConnection', input),
  setPrice: (input) => call('setPrice', input),
  resetPrice: (input) => call('resetPrice', input),
  setMaxModelCalls: (input) => call('setMaxModelCalls', input),
  getTraceExport: (input) => call('getTraceExport', input),
  setTraceExport: (input) => call('setTraceExport', input),
  mergeBranch: (input) => call('mergeBranch', input),
  discardBranch: (input) => call('discardBranch', input),
  listWorktrees: (input) => call('listWorktrees', input),
  // A dropped file's path on disk (sandboxed renderers cannot see it); only a real File has one.
  pathForFile: (file) => (file instanceof File ? webUtils.getPathForFile(file) : ''),
  subscribe(listener) {
    // The IPC event (which carries `sender`) never reaches the renderer; only the notification.
    const forward = (_event: IpcRendererEvent, notification: ApiNotification) => listener(notification)
    ipcRenderer.on(notificationChannel, forward)
    return () => {
      ipcRenderer.removeListener(notificationChannel, forward)
    }
  },
} satisfies ArborBridge

contextBridge.exposeInMainWorld('arbor', api)
