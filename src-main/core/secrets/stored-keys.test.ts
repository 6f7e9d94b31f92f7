import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { complete, recordEvents, testAgentHost } from '../supervisor/testing'
import { createEngine, defaultSettings } from '../engine'
import { startFakeOpenAI } from '../providers/testing/fake-openai'
import { FileKeyStore, traceHeaderSecret } from '../settings/key-store'
import { useCleanups } from '../testing/cleanups'
import { redactedMark } from './redact'

/**
 * Every key in the key store is redacted, not only the job's own: real agent processes, a real
 * SQLite file, the real openai SDK against a local server. The keys here match none of the
 * redactor's shapes (no `sk-`, no `NAME=`), so only knowing them can take them out.
 */
const { cleanups, tempDir } = useCleanups('arbor-stored-keys-')

const openaiKey = 'job-own-openai-key-5e0c93a1'
const anthropicKey = 'stored-anthropic-key-4d1f9a7c2e8b'
const collectorToken = 'collector-token-7f3a9c1e5b62'

function rig(keys: FileKeyStore) {
  const dir = tempDir()
  const project = path.join(dir, 'project')
  mkdirSync(project)
  const dbFile = path.join(dir, 'arbor.db')
  const engine = createEngine({ dbFile, processHost: testAgentHost(), projectDir: project, keys, env: {}, warmPool: 0 })
  cleanups.push(() => engine.close())
  return { dir, project, dbFile, engine, ...recordEvents(engine) }
}

/** The database as the disk holds it, its write-ahead log included. */
const databaseBytes = (dbFile: string): Buffer =>
  Buffer.concat([dbFile, `${dbFile}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)))

describe('keys in the key store', () => {
  it("a second stored key (not the job's) in a file an agent reads reaches neither the trace, the export nor the next model request", async () => {
    const keys = new FileKeyStore(path.join(tempDir(), 'keys.json'))
    keys.set('openai', openaiKey)
    keys.set('anthropic', anthropicKey)
    keys.set(traceHeaderSecret('Authorization'), collectorToken)
    const server = await startFakeOpenAI({
      queue: [
        { tool_calls: [{ name: 'read_file', arguments: { path: 'deploy.txt' } }] },
        { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'read it' } }] },
      ],
    })
    cleanups.push(() => server.close())
    const { dir, project, dbFile, engine, events } = rig(keys)
    writeFileSync(path.join(project, 'deploy.txt'), `claude ${anthropicKey}\ncollector ${collectorToken}\n`)

    const jobId = engine.supervisor.startJob({
      project,
      task: 'read the deploy notes',
      settings: defaultSettings({ provider: 'openai', model: 'gpt-4o-mini', base_url: `${server.url}/v1` }),
    })
    await engine.waitForJob(jobId)

    // The job ran with the OpenAI key; the Anthropic key and the collector's token were only in the file.
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${openaiKey}`)
    const read = events.find((event) => event.type === 'tool.result')
    expect(String(read?.data.output)).toContain(`claude ${redactedMark}`)
    expect(String(read?.data.output)).toContain(`collector ${redactedMark}`)

    const nextRequest = JSON.stringify(server.requests[1]!.body)
    expect(nextRequest).toContain(`claude ${redactedMark}`)
    const exportFile = path.join(dir, 'trace.jsonl')
    await engine.exportJsonl(jobId, exportFile)
    const exported = readFileSync(exportFile, 'utf8')
    expect(exported).toContain(`claude ${redactedMark}`)
    await engine.close()
    const stored = databaseBytes(dbFile)
    for (const secret of [anthropicKey, collectorToken, openaiKey]) {
      expect(nextRequest).not.toContain(secret)
      expect(exported).not.toContain(secret)
      expect(stored.includes(secret)).toBe(false)
    }
  })

  it('a key saved after its job ran is taken out of the export, and of the trace imported again, though it was written before', async () => {
    const keys = new FileKeyStore(path.join(tempDir(), 'keys.json'))
    const { dir, project, engine } = rig(keys)
    writeFileSync(path.join(project, 'notes.txt'), `staging ${anthropicKey}\n`)
    const jobId = engine.supervisor.startJob({
      project,
      task: `read the notes on staging ${anthropicKey}`,
      settings: defaultSettings({
        script: { root: [{ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, complete('read it')], children: {} },
      }),
    })
    await engine.waitForJob(jobId)
    const before = path.join(dir, 'before.jsonl')
    await engine.exportJsonl(jobId, before)
    // Unknown when the job ran: stored as typed and read.
    expect(readFileSync(before, 'utf8')).toContain(`staging ${anthropicKey}\\n`)

    keys.set('anthropic', anthropicKey)
    for (const format of ['jsonl', 'otlp'] as const) {
      const after = path.join(dir, `after.${format}`)
      await engine.exportTrace(jobId, after, format)
      const text = readFileSync(after, 'utf8')
      expect(text).not.toContain(anthropicKey)
      // The task is in both formats, what the tool read only in JSONL (a span holds no tool output).
      expect(text).toContain(`read the notes on staging ${redactedMark}`)
      if (format === 'jsonl') expect(text).toContain(`staging ${redactedMark}\\n`)
    }

    // Imported elsewhere with the key saved there, the old file is stored without it.
    const other = rig(keys)
    other.engine.importTrace(before)
    await other.engine.close()
    expect(databaseBytes(other.dbFile).includes(anthropicKey)).toBe(false)
    expect(databaseBytes(other.dbFile).includes(`staging ${redactedMark}`)).toBe(true)
  })
})

describe('API errors', () => {
  it("carry no stored key in their message, the error's code kept", async () => {
    const keys = new FileKeyStore(path.join(tempDir(), 'keys.json'))
    keys.set('anthropic', anthropicKey)
    const { dir, engine } = rig(keys)
    const failure = await engine.handlers.importTrace({ path: path.join(dir, `${anthropicKey}.jsonl`) }).catch((error: Error) => error)
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error & { code?: string }).code).toBe('invalid_request')
    expect((failure as Error).message).toContain(`${redactedMark}.jsonl`)
    expect((failure as Error).message).not.toContain(anthropicKey)
  })
})
