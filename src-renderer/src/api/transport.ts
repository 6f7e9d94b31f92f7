import { exportFormatSuffix, type ApiOutputs, type ArborApi, type ArborBridge, type ExportFormatName } from '@core/api/contract'
import { clientOfBridge } from './bridge-client'
import { createWsClient, type ConnectionListener, type WebSocketLike } from './ws-client'

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent when the UI is served to a browser. */
    arbor?: ArborBridge
  }
}

export type ExportFormat = ExportFormatName
export type ImportResult = ApiOutputs['importTrace']

/** The one API object the UI holds, plus what differs between Electron and a browser. */
export interface Transport {
  kind: 'electron' | 'browser'
  api: ArborApi
  onConnectionChange(listener: ConnectionListener): () => void
  /**
   * Saves a job's trace (JSONL, or OTLP JSON): a save dialog in Electron, a download in a
   * browser. Returns a note for the user, if any.
   */
  exportJob(jobId: string, format?: ExportFormat): Promise<string | null>
  /** Imports a trace file the user dropped or picked: by its path on disk in Electron, uploaded to POST /import in a browser. */
  importTraceFile(file: File): Promise<ImportResult>
  /** Desktop only: a dropped file's path on disk ('' when it has none, and always '' in a browser). */
  pathForFile(file: File): string
}

export function createTransport(): Transport {
  if (window.arbor) return electronTransport(clientOfBridge(window.arbor))
  return browserTransport()
}

function electronTransport(api: ArborApi): Transport {
  const pathForFile = (file: File): string => api.pathForFile?.(file) ?? ''
  return {
    kind: 'electron',
    api,
    onConnectionChange: () => () => undefined,
    async exportJob(jobId, format = 'jsonl') {
      const { path, lines } = await api.exportJob({ job_id: jobId, format })
      return path ? `Exported ${lines} lines to ${path}` : null
    },
    async importTraceFile(file) {
      const path = pathForFile(file)
      if (!path) throw new Error(`${file.name} has no path on disk; open it with Open trace… instead`)
      return api.importTrace({ path })
    },
    pathForFile,
  }
}

export function tokenFromSearch(search: string): string {
  return new URLSearchParams(search).get('token') ?? ''
}

/** The message of a failed `POST /import`: the server's JSON error, or the status line when it sent none. */
export function importErrorMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } }
    if (typeof parsed.error?.message === 'string' && parsed.error.message) return parsed.error.message
  } catch {
    // not JSON: fall through to the raw text
  }
  const text = body.trim().split('\n')[0]?.slice(0, 200)
  return `the server answered ${status}${text ? `: ${text}` : ''}`
}

function browserTransport(): Transport {
  const token = tokenFromSearch(window.location.search)
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const url = `${scheme}://${window.location.host}/ws?token=${encodeURIComponent(token)}`
  const client = createWsClient({ url, createSocket: (address) => new WebSocket(address) as WebSocketLike })
  // The token rides in the query of every request the page makes. There is no cookie: a cookie is
  // not scoped by port, so 127.0.0.1's other servers would receive it too.
  const withToken = (path: string): string => (token ? `${path}?token=${encodeURIComponent(token)}` : path)
  return {
    kind: 'browser',
    api: client.api,
    onConnectionChange: client.onConnectionChange,
    async exportJob(jobId, format = 'jsonl') {
      const name = `${jobId}.${exportFormatSuffix[format]}`
      const link = document.createElement('a')
      link.href = withToken(`/export/${encodeURIComponent(name)}`)
      link.download = name
      document.body.append(link)
      link.click()
      link.remove()
      return null
    },
    async importTraceFile(file) {
      let response: Response
      try {
        response = await fetch(withToken('/import'), {
          method: 'POST',
          body: file,
          headers: { 'content-type': 'application/x-ndjson' },
        })
      } catch (error) {
        throw new Error(`could not reach the server (${error instanceof Error ? error.message : String(error)})`)
      }
      const body = await response.text()
      if (!response.ok) throw new Error(importErrorMessage(response.status, body))
      try {
        return JSON.parse(body) as ImportResult
      } catch {
        throw new Error('the server answered the import with something that is not JSON')
      }
    },
    pathForFile: () => '',
  }
}
