import type { ApiMethod, ApiNotification, ApiResult, ArborApi } from '@core/api/contract'
import { ApiFailure, unwrapResult } from '@core/api/errors'
import { apiMethods } from '@core/api/methods'

/** The few members of a browser WebSocket the client uses, so tests can pass a fake. */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: unknown) => void) | null
  onerror: ((event: unknown) => void) | null
}

export type ConnectionListener = (connected: boolean, reconnected: boolean) => void

export interface WsClient {
  api: ArborApi
  onConnectionChange(listener: ConnectionListener): () => void
  close(): void
}

export interface WsClientOptions {
  url: string
  createSocket: (url: string) => WebSocketLike
  /** Delay before reconnect attempt n (0-based). */
  backoff?: (attempt: number) => number
  setTimer?: (callback: () => void, ms: number) => unknown
}

interface Pending {
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

const OPEN = 1
const defaultBackoff = (attempt: number): number => Math.min(5000, 250 * 2 ** attempt)

/**
 * The ArborApi over the `serve` WebSocket: numbered requests matched to their responses,
 * pushed notifications fanned out to subscribers, reconnect with backoff. Requests made while
 * the socket is down wait for it; requests in flight when it drops are rejected.
 */
export function createWsClient(options: WsClientOptions): WsClient {
  const backoff = options.backoff ?? defaultBackoff
  const setTimer = options.setTimer ?? ((callback, ms) => setTimeout(callback, ms))
  const pending = new Map<number, Pending>()
  const outbox: string[] = []
  const subscribers = new Set<(notification: ApiNotification) => void>()
  const connectionListeners = new Set<ConnectionListener>()
  let nextId = 1
  let socket: WebSocketLike | null = null
  let attempt = 0
  let everConnected = false
  let closed = false

  const notifyConnection = (connected: boolean, reconnected: boolean): void => {
    for (const listener of connectionListeners) listener(connected, reconnected)
  }

  const connect = (): void => {
    if (closed) return
    const current = options.createSocket(options.url)
    socket = current
    current.onopen = () => {
      attempt = 0
      const reconnected = everConnected
      everConnected = true
      for (const message of outbox.splice(0)) current.send(message)
      notifyConnection(true, reconnected)
    }
    current.onmessage = (event) => handleMessage(event.data)
    current.onerror = () => undefined
    current.onclose = () => {
      if (socket !== current) return
      socket = null
      for (const [id, request] of pending) {
        pending.delete(id)
        request.reject(new ApiFailure('disconnected', 'connection to the Arbor server was lost'))
      }
      notifyConnection(false, false)
      if (closed) return
      setTimer(connect, backoff(attempt++))
    }
  }

  const handleMessage = (raw: unknown): void => {
    let message: unknown
    try {
      message = JSON.parse(typeof raw === 'string' ? raw : String(raw))
    } catch {
      return
    }
    if (!message || typeof message !== 'object') return
    const record = message as Record<string, unknown>
    if (record.notification && typeof record.notification === 'object') {
      const notification = record.notification as ApiNotification
      for (const subscriber of subscribers) subscriber(notification)
      return
    }
    if (typeof record.id !== 'number') return
    const request = pending.get(record.id)
    if (!request) return
    pending.delete(record.id)
    // A failure rejects with an ApiFailure that keeps the server's code and a refused form's fields.
    try {
      request.resolve(unwrapResult(record.result as ApiResult<unknown>))
    } catch (error) {
      request.reject(error as ApiFailure)
    }
  }

  const call = (method: ApiMethod, input: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      const message = JSON.stringify({ id, method, input })
      if (socket && socket.readyState === OPEN) socket.send(message)
      else outbox.push(message)
    })

  const methods = Object.fromEntries(apiMethods.map((method) => [method, (input: unknown) => call(method, input)])) as unknown as Omit<
    ArborApi,
    'subscribe'
  >

  const api: ArborApi = {
    ...methods,
    subscribe(listener) {
      subscribers.add(listener)
      return () => subscribers.delete(listener)
    },
  }

  connect()
  return {
    api,
    onConnectionChange(listener) {
      connectionListeners.add(listener)
      return () => connectionListeners.delete(listener)
    },
    close() {
      closed = true
      socket?.close()
    },
  }
}
