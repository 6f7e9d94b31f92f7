import { beforeEach, describe, expect, it, vi } from 'vitest'
import { apiContract, type ApiHandlers, type ApiNotification, type ArborBridge } from '@core/api/contract'
import { createDispatcher } from '@core/api/dispatcher'
import { ApiFailure, internalErrorMessage, unwrapResult } from '@core/api/errors'
import { ArborError } from '@core/errors'
import { ipcChannel, notificationChannel } from '@core/api/methods'

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

function exposedApi(): ArborBridge {
  return bridge.exposed[0]?.[1] as ArborBridge
}

/** Main's side as the app wires it: the real dispatcher over these handlers, its reply copied as IPC copies it. */
function serveWith(handlers: Partial<ApiHandlers>): string[] {
  const internal: string[] = []
  const dispatch = createDispatcher(handlers as ApiHandlers, (error) => internal.push(String(error)))
  const methodOf = new Map(Object.keys(apiContract).map((method) => [ipcChannel(method as keyof ApiHandlers), method]))
  bridge.reply = async (channel, input) => structuredClone(await dispatch(methodOf.get(channel)!, input))
  return internal
}

/** What the renderer's client does with a result (src-renderer/src/api/bridge-client.ts): its error thrown as an ApiFailure. */
async function rejection(result: Promise<unknown>): Promise<unknown> {
  return (result as Promise<Parameters<typeof unwrapResult>[0]>).then(unwrapResult).then(
    () => new Error('resolved'),
    (caught: unknown) => caught,
  )
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

  it('invokes the method channel and resolves to its result', async () => {
    bridge.reply = () => ({ ok: true, value: { project: null, all_paused: true } })
    expect(await exposedApi().getState({})).toEqual({ ok: true, value: { project: null, all_paused: true } })
    expect(bridge.invoked).toEqual([['arbor:getState', {}]])
  })

  it("brings a handler's code and a refused form's fields across as data, thrown by the client as an ApiFailure", async () => {
    const internal = serveWith({
      startJob: async () => {
        throw new ApiFailure('invalid_request', 'startJob: task: describe the task', { task: 'describe the task' })
      },
      getTree: async () => {
        throw new ApiFailure('not_found', 'job job_9 not found')
      },
    })
    // contextBridge passes plain data whole, and an Error only by its message: the preload must not throw.
    const result = await exposedApi().startJob({ kind: 'demo' })
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid_request', message: 'startJob: task: describe the task', fields: { task: 'describe the task' } },
    })
    const refused = await rejection(exposedApi().startJob({ kind: 'demo' }))
    expect(ApiFailure.isInstance(refused)).toBe(true)
    expect(refused).toMatchObject({
      code: 'invalid_request',
      message: 'startJob: task: describe the task',
      fields: { task: 'describe the task' },
    })
    expect(await rejection(exposedApi().getTree({ job_id: 'job_9' }))).toMatchObject({ code: 'not_found', message: 'job job_9 not found' })
    expect(internal).toEqual([])
    expect(exposedApi().pathForFile?.('not a File')).toBe('')
  })

  it('brings an error that is not an Arbor error across as internal, without its message', async () => {
    const internal = serveWith({
      getState: async () => {
        throw new TypeError('SQLITE_ERROR near "SELECT key FROM secrets WHERE value = \'sk-live-123\'"')
      },
      listJobs: async () => {
        throw new ArborError('store', 'Database arbor.db is locked by another Arbor')
      },
    })
    const failed = await rejection(exposedApi().getState({}))
    expect(failed).toMatchObject({ code: 'internal', message: internalErrorMessage })
    expect(JSON.stringify(await exposedApi().getState({}))).not.toContain('sk-live')
    expect(internal).toHaveLength(2)
    expect(internal[0]).toContain('sk-live-123')
    // An Arbor error's message was written for the user: it crosses, under `internal`.
    expect(await rejection(exposedApi().listJobs({}))).toMatchObject({
      code: 'internal',
      message: 'Database arbor.db is locked by another Arbor',
    })
  })

  it('answers a call the main process did not serve with an internal result, not a throw', async () => {
    bridge.reply = () => {
      throw new Error("No handler registered for 'arbor:getState'")
    }
    expect(await exposedApi().getState({})).toEqual({
      ok: false,
      error: { code: 'internal', message: "getState could not reach Arbor's main process" },
    })
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
