import type { ApiMethod } from './contract'

/** The method names, without zod, for the preload and the browser client. */
export const apiMethods = [
  'getState',
  'openProject',
  'closeProject',
  'listRecentProjects',
  'completePath',
  'chooseProjectFolder',
  'chooseTraceFile',
  'listProfiles',
  'getJobDefaults',
  'listJobs',
  'startJob',
  'getTree',
  'getEvents',
  'getTimeline',
  'getReplayEvents',
  'setSpawnPaused',
  'killAgent',
  'stopAgent',
  'cancelSpawn',
  'retryNow',
  'setAutoApprove',
  'setSubagentApprovals',
  'decideApproval',
  'revokeApprovedCommand',
  'steerAgent',
  'followUp',
  'resumeJob',
  'editSpawn',
  'exportJob',
  'importTrace',
  'getSettings',
  'setProviderKey',
  'clearProviderKey',
  'setProviderConfig',
  'testConnection',
  'setPrice',
  'resetPrice',
  'setMaxModelCalls',
  'getTraceExport',
  'setTraceExport',
] as const satisfies readonly ApiMethod[]

/** IPC channel names: one per method, plus the notification channel. */
export const ipcChannel = (method: ApiMethod): string => `arbor:${method}`
export const notificationChannel = 'arbor:notify'
