import { describe, expect, it } from 'vitest'
import { apiContract, type ApiHandlers, type ApiNotification, type ApiResult } from '../core/api/contract'
import { createDispatcher } from '../core/api/dispatcher'
import { notificationChannel } from '../core/api/methods'
import { createAppUrlCheck } from './app-url'
import { createSenderCheck, forwardNotifications, registerIpc, type AppWindow, type InvokeEvent } from './ipc'

// Electron's ipcMain and BrowserWindow cannot run here (no Electron binary): these stand-ins
// record what the wiring does with them. The dispatcher and its zod parsing are the real ones.

const appUrl = 'file:///opt/arbor/out/renderer/index.html'

function fakeWindow(): AppWindow & { sent: [string, unknown[]][]; destroyed: boolean } {
  const window = {
    sent: [] as [string, unknown[]][],
    destroyed: false,
    webContents: { send: (channel: string, ...args: unknown[]) => window.sent.push([channel, args]) },
    isDestroyed: () => window.destroyed,
  }
  return window
}

function setup(options: { savePath?: string | null; folder?: string | null; traceFile?: string | null } = {}) {
  const window = fakeWindow()
  const listeners = new Map<string, (event: InvokeEvent, input: unknown) => Promise<ApiResult<unknown>>>()
  const exported: unknown[] = []
  const proposedNames: string[] = []
  const opened: unknown[] = []
  const handlers = {
    getState: async () => ({ project: null, all_paused: false }),
    openProject: async (input) => {
      opened.push(['openProject', input])
      return { project: { path: input.path, name: 'shop' } }
    },
    importTrace: async (input) => {
      opened.push(['importTrace', input])
      return { job_id: 'job_imported', events: 12, existing: false }
    },
    exportJob: async (input) => {
      exported.push(input)
      return { path: input.path ?? null, lines: 7 }
    },
  } as Partial<ApiHandlers> as ApiHandlers
  const unregister = registerIpc({
    ipcMain: {
      handle: (channel, listener) => listeners.set(channel, listener),
      removeHandler: (channel) => listeners.delete(channel),
    },
    dispatch: createDispatcher(handlers),
    isTrustedSender: createSenderCheck(() => window, createAppUrlCheck(appUrl)),
    chooseExportPath: async (name) => {
      proposedNames.push(name)
      return options.savePath === undefined ? `/home/user/${name}` : options.savePath
    },
    chooseFolder: async () => (options.folder === undefined ? '/home/user/shop' : options.folder),
    chooseTraceFile: async () => (options.traceFile === undefined ? '/home/user/trace.jsonl' : options.traceFile),
  })
  const trusted: InvokeEvent = { sender: window.webContents, senderFrame: { url: `${appUrl}#/jobs`, parent: null } }
  const invoke = (channel: string, input: unknown, event: InvokeEvent = trusted) => {
    const listener = listeners.get(channel)
    if (!listener) throw new Error(`no handler on ${channel}`)
    return listener(event, input)
  }
  return { window, listeners, exported, proposedNames, opened, unregister, invoke, trusted }
}

describe('registerIpc', () => {
  it('registers one channel per contract method and removes them all', () => {
    const { listeners, unregister } = setup()
    expect([...listeners.keys()].sort()).toEqual(
      Object.keys(apiContract)
        .map((method) => `arbor:${method}`)
        .sort(),
    )
    unregister()
    expect(listeners.size).toBe(0)
  })

  it('serves a trusted request through the dispatcher', async () => {
    const { invoke } = setup()
    expect(await invoke('arbor:getState', {})).toEqual({ ok: true, value: { project: null, all_paused: false } })
  })

  it('parses every payload: a malformed request gets a clear error, not the handler', async () => {
    const { invoke, exported } = setup()
    const result = await invoke('arbor:exportJob', { job_id: 42 })
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    expect(exported).toEqual([])
  })

  it('refuses requests from another web contents, a subframe or a foreign page', async () => {
    const { invoke, window, exported } = setup()
    const frame = { url: appUrl, parent: null }
    const untrusted: InvokeEvent[] = [
      { sender: { other: true }, senderFrame: frame },
      { sender: window.webContents, senderFrame: { url: appUrl, parent: frame } },
      { sender: window.webContents, senderFrame: { url: 'https://evil.example/', parent: null } },
      { sender: window.webContents, senderFrame: null },
    ]
    for (const event of untrusted) {
      const result = await invoke('arbor:exportJob', { job_id: 'job_1', path: '/tmp/x.jsonl' }, event)
      expect(result).toEqual({
        ok: false,
        error: { code: 'invalid_request', message: 'exportJob: request from an untrusted sender' },
      })
    }
    window.destroyed = true
    expect(await invoke('arbor:getState', {})).toMatchObject({ ok: false })
    expect(exported).toEqual([])
  })

  it('exportJob without a path asks where to save and exports there', async () => {
    const { invoke, exported, proposedNames } = setup()
    const result = await invoke('arbor:exportJob', { job_id: 'job/../1' })
    expect(proposedNames).toEqual(['arbor-job_.._1.jsonl'])
    expect(exported).toEqual([{ job_id: 'job/../1', path: '/home/user/arbor-job_.._1.jsonl' }])
    expect(result).toEqual({ ok: true, value: { path: '/home/user/arbor-job_.._1.jsonl', lines: 7 } })
  })

  it('exportJob with a cancelled dialog exports nothing and returns a null path', async () => {
    const { invoke, exported } = setup({ savePath: null })
    expect(await invoke('arbor:exportJob', { job_id: 'job_1' })).toEqual({ ok: true, value: { path: null, lines: 0 } })
    expect(exported).toEqual([])
  })

  it('refuses an exportJob whose path the renderer chose, writing nothing', async () => {
    const { invoke, proposedNames } = setup()
    const result = await invoke('arbor:exportJob', { job_id: 'job_1', path: '/etc/cron.d/evil' })
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('may not choose a path') },
    })
    expect(proposedNames).toEqual([])
  })
})

describe('the dialogs the shell answers itself', () => {
  it('chooseProjectFolder opens the folder the user picked, and nothing when they cancel', async () => {
    const picked = setup()
    expect(await picked.invoke('arbor:chooseProjectFolder', {})).toEqual({
      ok: true,
      value: { project: { path: '/home/user/shop', name: 'shop' } },
    })
    expect(picked.opened).toEqual([['openProject', { path: '/home/user/shop' }]])
    const cancelled = setup({ folder: null })
    expect(await cancelled.invoke('arbor:chooseProjectFolder', {})).toEqual({ ok: true, value: { project: null } })
    expect(cancelled.opened).toEqual([])
  })

  it('chooseTraceFile imports the file the user picked and answers its job', async () => {
    const picked = setup()
    expect(await picked.invoke('arbor:chooseTraceFile', {})).toEqual({ ok: true, value: { job_id: 'job_imported' } })
    expect(picked.opened).toEqual([['importTrace', { path: '/home/user/trace.jsonl' }]])
    const cancelled = setup({ traceFile: null })
    expect(await cancelled.invoke('arbor:chooseTraceFile', {})).toEqual({ ok: true, value: { job_id: null } })
  })

  it('an OTLP export proposes an .otlp.json name, one with the files’ contents .contents.jsonl', async () => {
    const { invoke, proposedNames } = setup()
    await invoke('arbor:exportJob', { job_id: 'job_1', format: 'otlp' })
    await invoke('arbor:exportJob', { job_id: 'job_1', format: 'jsonl_contents' })
    expect(proposedNames).toEqual(['arbor-job_1.otlp.json', 'arbor-job_1.contents.jsonl'])
  })
})

describe('forwardNotifications', () => {
  const notification: ApiNotification = { kind: 'events', events: [] }

  it('sends each notification to the open window on the notification channel', () => {
    const window = fakeWindow()
    forwardNotifications(() => window)(notification)
    expect(window.sent).toEqual([[notificationChannel, [notification]]])
  })

  it('drops notifications when the window is gone', () => {
    const window = fakeWindow()
    window.destroyed = true
    forwardNotifications(() => window)(notification)
    forwardNotifications(() => null)(notification)
    expect(window.sent).toEqual([])
  })
})
