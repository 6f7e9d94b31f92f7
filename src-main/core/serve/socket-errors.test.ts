import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createWsClient, type WebSocketLike, type WsClient } from '../../../src-renderer/src/api/ws-client'
import { ApiFailure, internalErrorMessage } from '../api/errors'
import { defaultModels, defaultNewJob } from '../api/job-form'
import { createEngine, type Engine } from '../engine'
import { FileKeyStore } from '../settings/key-store'
import { testAgentHost } from '../supervisor/testing'
import { useCleanups } from '../testing/cleanups'
import { startServer } from './server'

/**
 * Errors over the `serve` WebSocket as the browser UI gets them: a real server with a real
 * engine, and the renderer's own client (ws-client.ts) over a `ws` socket. A failed call rejects
 * with an ApiFailure that keeps the handler's code and a refused form's fields; what is not an
 * Arbor error arrives as `internal` and leaves its message in the server's log.
 */

const { cleanups, tempDir } = useCleanups('arbor-socket-errors-')

async function connect(
  adjust: (engine: Engine) => Engine = (engine) => engine,
): Promise<{ client: WsClient; logs: string[]; project: string }> {
  const dir = tempDir()
  const rendererDir = path.join(dir, 'renderer')
  const project = path.join(dir, 'project')
  mkdirSync(rendererDir)
  mkdirSync(project)
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Arbor</title>\n')
  const engine = createEngine({
    dbFile: path.join(dir, 'arbor.db'),
    processHost: testAgentHost(),
    keys: new FileKeyStore(path.join(dir, 'keys.json')),
    env: {},
  })
  cleanups.push(() => engine.close())
  const logs: string[] = []
  const server = await startServer({ engine: adjust(engine), rendererDir, log: (line) => logs.push(line) })
  cleanups.push(() => server.close())
  const client = createWsClient({
    url: `ws://127.0.0.1:${server.port}/ws?token=${server.token}`,
    createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
  })
  cleanups.push(() => client.close())
  return { client, logs, project }
}

const rejection = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  )

describe('errors over the serve WebSocket', () => {
  it("rejects with the handler's code and the refused form's fields", async () => {
    const { client, project } = await connect()
    await client.api.openProject({ path: project })
    // An OpenAI job with no key anywhere: checkNewJob refuses the provider field.
    const job = { ...defaultNewJob(), task: 'Explore this project', provider: 'openai' as const, ...defaultModels.openai }
    const refused = await rejection(client.api.startJob({ kind: 'agent', job }))
    expect(ApiFailure.isInstance(refused)).toBe(true)
    const failure = refused as ApiFailure
    expect(failure.code).toBe('invalid_request')
    expect(Object.keys(failure.fields ?? {})).toEqual(['provider'])
    expect(failure.fields?.provider).toMatch(/key/i)
    expect(failure.message).toBe(`startJob: provider: ${failure.fields?.provider}`)

    expect(await rejection(client.api.getTree({ job_id: 'job_missing' }))).toMatchObject({
      code: 'not_found',
      message: 'job job_missing not found',
    })
  })

  it('sends what is not an Arbor error as internal, its message only to the log', async () => {
    const secret = 'sk-proj-0123456789abcdef'
    const { client, logs } = await connect((engine) => ({
      ...engine,
      handlers: {
        ...engine.handlers,
        listJobs: async () => {
          throw new TypeError(`cannot read the key ${secret} from /home/someone/.arbor/keys.json`)
        },
      },
    }))
    const failed = await rejection(client.api.listJobs({}))
    expect(ApiFailure.isInstance(failed)).toBe(true)
    expect(failed).toMatchObject({ code: 'internal', message: internalErrorMessage, fields: undefined })
    expect(logs.some((line) => line.includes(secret))).toBe(true)
  })
})
