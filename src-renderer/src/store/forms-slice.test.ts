import { afterEach, describe, expect, it, vi } from 'vitest'
import { create } from 'zustand'
import type { ApiInput, ArborApi, SettingsView } from '@core/api/contract'
import { defaultNewJob } from '@core/api/job-form'
import type { Transport } from '../api/transport'
import { setTransport } from './api-ref'
import { createFormsSlice, settingsFocusOf } from './forms-slice'
import type { ArborState, FormsSlice } from './types'

/** The forms slice with stand-ins for the jobs slice's two actions it calls. */
function makeStore(api: Partial<ArborApi>) {
  setTransport({ kind: 'browser', api: api as ArborApi } as Transport)
  const calls: string[] = []
  const store = create<FormsSlice & Pick<ArborState, 'loadJobs' | 'selectJob' | 'inspect'>>()((...args) => ({
    ...(createFormsSlice as unknown as (...a: typeof args) => FormsSlice)(...args),
    loadJobs: async () => void calls.push('loadJobs'),
    selectJob: (jobId) => void calls.push(`selectJob ${jobId}`),
    inspect: (agentId) => void calls.push(`inspect ${agentId}`),
  }))
  return { store, calls }
}

const view: SettingsView = {
  providers: [],
  prices: [],
  key_storage: { encrypted: false, available: true, description: 'keys.json' },
  max_model_calls: 8,
}

afterEach(() => vi.restoreAllMocks())

describe('forms slice', () => {
  it('opens and closes the dialog and the settings page', () => {
    const { store } = makeStore({})
    store.getState().openNewJob()
    expect(store.getState().newJobOpen).toBe(true)
    store.getState().openSettings({ priceModel: ' llama3.1 ' })
    expect(store.getState()).toMatchObject({ settingsOpen: true, newJobOpen: true, settingsFocus: { priceModel: 'llama3.1' } })
    store.getState().closeSettings()
    expect(store.getState()).toMatchObject({ settingsOpen: false, settingsFocus: null, newJobOpen: true })
    store.getState().closeNewJob()
    expect(store.getState().newJobOpen).toBe(false)
  })

  it('asks settings to scroll again each time, even for the same model', () => {
    const { store } = makeStore({})
    store.getState().openSettings({ priceModel: 'x' })
    const first = store.getState().settingsFocus!.seq
    store.getState().openSettings({ priceModel: 'x' })
    expect(store.getState().settingsFocus!.seq).not.toBe(first)
    expect(settingsFocusOf(undefined, 3)).toEqual({ priceModel: null, seq: 3 })
    expect(settingsFocusOf({ priceModel: '  ' }, 4)).toEqual({ priceModel: null, seq: 4 })
  })

  it('caches the settings read, and applies patches to it', async () => {
    const { store } = makeStore({ getSettings: async () => view })
    store.getState().patchSettings((current) => ({ ...current, prices: [] }))
    expect(store.getState().settingsView).toBeNull()
    await expect(store.getState().loadSettings()).resolves.toBe(view)
    store.getState().patchSettings((current) => ({ ...current, key_storage: { ...current.key_storage, encrypted: true } }))
    expect(store.getState().settingsView?.key_storage.encrypted).toBe(true)
  })

  it("starts an agent job, then closes the dialog, reloads the jobs, selects the new one and opens its root's trace", async () => {
    const started: ApiInput<'startJob'>[] = []
    const { store, calls } = makeStore({
      startJob: async (input) => {
        started.push(input)
        return { job_id: 'job-7', root_agent_id: 'agent-root-7' }
      },
    })
    store.getState().openNewJob()
    const job = { ...defaultNewJob(), task: 'Explore' }
    await expect(store.getState().startAgentJob(job)).resolves.toBe('job-7')
    expect(started).toEqual([{ kind: 'agent', job }])
    expect(store.getState().newJobOpen).toBe(false)
    expect(calls).toEqual(['loadJobs', 'selectJob job-7', 'inspect agent-root-7'])
  })

  it('leaves the dialog open and rejects when the server refuses', async () => {
    const { store, calls } = makeStore({
      startJob: async () => {
        throw new Error('startJob: provider: no key')
      },
    })
    store.getState().openNewJob()
    await expect(store.getState().startAgentJob({ ...defaultNewJob(), task: 'x' })).rejects.toThrow('no key')
    expect(store.getState().newJobOpen).toBe(true)
    expect(calls).toEqual([])
  })
})
