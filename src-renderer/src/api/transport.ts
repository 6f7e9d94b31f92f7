import type { ArborApi } from '../../../src-main/core/api/contract'
import { createWsClient, type ConnectionListener, type WebSocketLike } from './ws-client'

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent when the UI is served to a browser. */
    arbor?: ArborApi
  }
}

/** The one API object the UI holds, plus what differs between Electron and a browser. */
export interface Transport {
  kind: 'electron' | 'browser'
  api: ArborApi
  onConnectionChange(listener: ConnectionListener): () => void
  /** Saves a job's trace JSONL: a save dialog in Electron, a download in a browser. Returns a note for the user, if any. */
  exportJob(jobId: string): Promise<string | null>
}

export function createTransport(): Transport {
  if (window.arbor) return electronTransport(window.arbor)
  return browserTransport()
}

function electronTransport(api: ArborApi): Transport {
  return {
    kind: 'electron',
    api,
    onConnectionChange: () => () => undefined,
    async exportJob(jobId) {
      const { path, lines } = await api.exportJob({ job_id: jobId })
      return path ? `Exported ${lines} lines to ${path}` : null
    },
  }
}

export function tokenFromSearch(search: string): string {
  return new URLSearchParams(search).get('token') ?? ''
}

function browserTransport(): Transport {
  const token = tokenFromSearch(window.location.search)
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const url = `${scheme}://${window.location.host}/ws?token=${encodeURIComponent(token)}`
  const client = createWsClient({ url, createSocket: (address) => new WebSocket(address) as WebSocketLike })
  return {
    kind: 'browser',
    api: client.api,
    onConnectionChange: client.onConnectionChange,
    async exportJob(jobId) {
      const link = document.createElement('a')
      link.href = `/export/${encodeURIComponent(jobId)}.jsonl?token=${encodeURIComponent(token)}`
      link.download = `${jobId}.jsonl`
      document.body.append(link)
      link.click()
      link.remove()
      return null
    },
  }
}
