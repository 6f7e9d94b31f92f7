import { beforeEach, describe, expect, it, vi } from 'vitest'
import { apiContract, type ApiNotification, type ArborApi } from '@core/api/contract'
import { notificationChannel, splitFieldErrors } from '@core/api/methods'

// The preload runs only inside Electron's sandbox; here `electron` is a stand-in (the real
// module is never loaded) that records what the preload exposes and sends.
const bridge = vi.hoisted(() => {
  type Listener = (event: unknown, ...args: unknown[]) => void
  return {
    exposed: [] as [string, unknown][],
    invoked: [] as [string, unknown][],
    listeners: new Map<string, Set<Listener>>(),
    reply: (_channel: string, _input: unknown): unknown => ({ ok: true, value: null }),
  }
})

vi.mock('electron', () => ({
  webUtils: { getPathForFile: () => '/dropped/trace.jsonl' },
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => bridge.exposed.push([key, value]) },
  ipcRenderer: {
    invoke: async (channel: string, input: unknown) => {
      bridge.invoked.push([channel, input])
      return bridge.reply(channel, input)
    },
    on: (channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      const set = bridge.listeners.get(channel) ?? new Set()
      set.add(listener)
      bridge.listeners.set(channel, set)
    },
    removeListener: (channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      bridge.listeners.get(channel)?.delete(listener)
    },
  },
}))

await import('./index')

function exposedApi(): ArborApi {
  return bridge.exposed[0]?.[1] as ArborApi
}

describe('preload', () => {
  beforeEach(() => {
    bridge.invoked.length = 0
  })

  it('exposes exactly one object, `arbor`, with one function per method and subscribe', () => {
    expect(bridge.exposed.map(([key]) => key)).toEqual(['arbor'])
    const api = exposedApi()
    expect(Object.keys(api).sort()).toEqual([...Object.keys(apiContract), 'subscribe', 'pathForFile'].sort())
    for (const value of Object.values(api)) expect(typeof value).toBe('function')
  })

  it('invokes the method channel and unwraps a successful result', async () => {
    bridge.reply = () => ({ ok: true, value: { project: null, all_paused: true } })
    expect(await exposedApi().getState({})).toEqual({ project: null, all_paused: true })
    expect(bridge.invoked).toEqual([['arbor:getState', {}]])
  })

  it('throws an Error carrying the message of a failed result', async () => {
    bridge.reply = () => ({ ok: false, error: { code: 'not_found', message: 'job job_9 not found' } })
    await expect(exposedApi().getTree({ job_id: 'job_9' })).rejects.toThrow('job job_9 not found')
  })

  it("carries a refused form's fields, which only a message can take across contextBridge", async () => {
    bridge.reply = () => ({
      ok: false,
      error: { code: 'invalid_request', message: 'startJob: task: describe the task', fields: { task: 'describe the task' } },
    })
    const error = await exposedApi()
      .startJob({ kind: 'demo' })
      .then(
        () => new Error('resolved'),
        (caught: unknown) => caught as Error,
      )
    expect(splitFieldErrors(error.message)).toEqual({ message: 'startJob: task: describe the task', fields: { task: 'describe the task' } })
    expect(exposedApi().pathForFile?.('not a File')).toBe('')
  })

  it('passes notifications, not the IPC event, to subscribers until they unsubscribe', () => {
    const received: unknown[] = []
    const unsubscribe = exposedApi().subscribe((notification) => received.push(notification))
    const notification: ApiNotification = { kind: 'events', events: [] }
    const emit = () => {
      for (const listener of bridge.listeners.get(notificationChannel) ?? []) listener({ sender: 'ipc' }, notification)
    }
    emit()
    unsubscribe()
    emit()
    expect(received).toEqual([notification])
    expect(bridge.listeners.get(notificationChannel)?.size).toBe(0)
  })
})
