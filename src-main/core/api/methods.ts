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
  'cancelSpawn',
  'setAutoApprove',
  'decideApproval',
  'exportJob',
  'importTrace',
  'getSettings',
  'setProviderKey',
  'clearProviderKey',
  'setProviderConfig',
  'testConnection',
  'setPrice',
  'resetPrice',
  'getTraceExport',
  'setTraceExport',
] as const satisfies readonly ApiMethod[]

/** IPC channel names: one per method, plus the notification channel. */
export const ipcChannel = (method: ApiMethod): string => `arbor:${method}`
export const notificationChannel = 'arbor:notify'

/** Where the preload puts a refused form's fields in an error message (only messages cross contextBridge). */
export const fieldsMarker = '\u0000fields:'

/** Splits an error message from the preload back into its text and fields. */
export function splitFieldErrors(message: string): { message: string; fields: Record<string, string> | null } {
  const at = message.indexOf(fieldsMarker)
  if (at < 0) return { message, fields: null }
  try {
    return {
      message: message.slice(0, at).trimEnd(),
      fields: JSON.parse(message.slice(at + fieldsMarker.length)) as Record<string, string>,
    }
  } catch {
    return { message: message.slice(0, at).trimEnd(), fields: null }
  }
}
