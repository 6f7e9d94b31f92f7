import WebSocket from 'ws'
import type { ArborServer } from './arbor-server'

/** A WebSocket client of a real `arbor serve` or `arbor open`: `ask` makes one request as the UI does, and rejects with the error the server answered. */
export async function apiClient(arbor: Pick<ArborServer, 'origin' | 'token'>) {
  const socket = new WebSocket(`${arbor.origin.replace('http', 'ws')}/ws?token=${arbor.token}`)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let nextId = 0
  const ask = <T>(method: string, input: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId
      const onMessage = (data: WebSocket.RawData): void => {
        const frame = JSON.parse(String(data)) as { id?: number; result?: { ok: boolean; value?: unknown; error?: { message: string } } }
        if (frame.id !== id || !frame.result) return
        socket.off('message', onMessage)
        if (frame.result.ok) resolve(frame.result.value as T)
        else reject(new Error(`${method}: ${frame.result.error?.message}`))
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ id, method, input }))
    })
  return { ask, close: () => socket.close() }
}
