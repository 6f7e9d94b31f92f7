import { describe, expect, it } from 'vitest'
import type { ApiNotification, ArborBridge } from '@core/api/contract'
import { ApiFailure } from '@core/api/errors'
import { apiMethods } from '@core/api/methods'
import { errorFields, errorText } from '../store/error-text'
import { clientOfBridge } from './bridge-client'

/** A preload stand-in: every method resolves to `reply` (what crossed contextBridge, as data). */
function fakeBridge(reply: unknown): ArborBridge & { calls: unknown[][] } {
  const calls: unknown[][] = []
  const methods = Object.fromEntries(
    apiMethods.map((method) => [
      method,
      async (input: unknown) => {
        calls.push([method, input])
        return structuredClone(reply)
      },
    ]),
  )
  return { ...methods, calls, subscribe: () => () => undefined } as unknown as ArborBridge & { calls: unknown[][] }
}

const rejection = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  )

describe('clientOfBridge', () => {
  it("resolves to a result's value", async () => {
    const bridge = fakeBridge({ ok: true, value: { project: null, all_paused: false } })
    expect(await clientOfBridge(bridge).getState({})).toEqual({ project: null, all_paused: false })
    expect(bridge.calls).toEqual([['getState', {}]])
  })

  it("rejects with an ApiFailure that keeps the code and a refused form's fields, which the forms read", async () => {
    const bridge = fakeBridge({
      ok: false,
      error: {
        code: 'invalid_request',
        message: 'startJob: provider: OpenAI has no API key',
        fields: { provider: 'OpenAI has no API key' },
      },
    })
    const error = await rejection(clientOfBridge(bridge).startJob({ kind: 'demo' }))
    expect(ApiFailure.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'invalid_request', fields: { provider: 'OpenAI has no API key' } })
    expect(errorText(error)).toBe('startJob: provider: OpenAI has no API key')
    expect(errorFields(error)).toEqual({ provider: 'OpenAI has no API key' })
  })

  it('rejects a malformed result as internal, and keeps only known codes and string fields', async () => {
    expect(await rejection(clientOfBridge(fakeBridge(undefined)).getState({}))).toMatchObject({
      code: 'internal',
      message: 'malformed response from the server',
    })
    const odd = fakeBridge({ ok: false, error: { code: 'EACCES', message: 'nope', fields: { path: 42 } } })
    const error = await rejection(clientOfBridge(odd).getState({}))
    expect(error).toMatchObject({ code: 'internal', message: 'nope', fields: undefined })
  })

  it('passes subscribe and pathForFile through', () => {
    const received: ApiNotification[] = []
    let forward: ((notification: ApiNotification) => void) | null = null
    const bridge = {
      ...fakeBridge(null),
      subscribe: (listener: (notification: ApiNotification) => void) => {
        forward = listener
        return () => undefined
      },
      pathForFile: () => '/dropped/trace.jsonl',
    }
    const client = clientOfBridge(bridge)
    client.subscribe((notification) => received.push(notification))
    forward!({ kind: 'events', events: [] })
    expect(received).toEqual([{ kind: 'events', events: [] }])
    expect(client.pathForFile?.({})).toBe('/dropped/trace.jsonl')
  })
})
