import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultNewJob, jobSettingsOf } from '../api/job-form'
import { complete, createTestRig, taskCall, type TestRig } from '../supervisor/testing'
import { jobSettingsSchema } from '../trace/event-data'
import { openDatabase } from './database'
import { exportJobJsonl } from './export'
import { importTraceFile } from '../import/import-job'
import { useTempDir } from './testing/temp-dir'

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const exportedAt = () => new Date('2026-01-01T00:00:00.000Z')
const headerOf = (text: string) => JSON.parse(text.slice(0, text.indexOf('\n'))) as { job: { settings: Record<string, unknown> } }

describe('a trace exported, imported and exported again', () => {
  const tempDir = useTempDir()

  /** Imports a trace file into a new database and exports it again; returns the second file's text. */
  async function reexport(file: string, name: string): Promise<string> {
    const db = openDatabase(join(tempDir(), `${name}.db`))
    const { job_id: jobId } = importTraceFile(db, file)
    const out = join(tempDir(), `${name}.jsonl`)
    await exportJobJsonl(db, jobId, out, { now: exportedAt })
    db.close()
    return readFileSync(out, 'utf8')
  }

  /** A real job (agent processes, scripted model, SQLite) started with the settings the new-job form builds, exported. */
  async function exportedRealJob(): Promise<string> {
    const { engine, project } = (rig = createTestRig())
    const form = { ...defaultNewJob(), provider: 'scripted' as const, model: 'scripted', light_model: null, allow_network: true }
    const settings = jobSettingsOf(form, {
      root: [{ tool_calls: [taskCall('Reader')] }, complete('root done')],
      children: { Reader: [{ tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }, complete('read')] },
    })
    // The form's settings are not in the schema's order (base_url, allow_network, no_sandbox and the spawn guards come late).
    expect(Object.keys(settings)).not.toEqual(Object.keys(jobSettingsSchema.shape).filter((key) => key in settings))
    const jobId = engine.supervisor.startJob({ project, task: 'round trip', settings })
    await engine.waitForJob(jobId)
    const stored = openDatabase(join(dirname(project), 'arbor.db'))
    const file = join(tempDir(), 'first.jsonl')
    await exportJobJsonl(stored, jobId, file, { now: exportedAt })
    stored.close()
    return readFileSync(file, 'utf8')
  }

  it('is the same bytes, for a real job', async () => {
    const first = await exportedRealJob()
    expect(first.split('\n').length).toBeGreaterThan(10)
    const second = await reexport(join(tempDir(), 'first.jsonl'), 'second')
    expect(second).toBe(first)
    expect(await reexport(join(tempDir(), 'second.jsonl'), 'third')).toBe(first)
  })

  it('is the same bytes, and in the schema’s order, for a file whose settings keys were shuffled', async () => {
    const first = await exportedRealJob()
    const lines = first.split('\n')
    const header = headerOf(first)
    const keys = Object.keys(header.job.settings)
    // Reversed, with two keys a later Arbor might add, one on either side of the alphabet.
    const shuffled: Record<string, unknown> = { zz_later: 1 }
    for (const key of [...keys].reverse()) shuffled[key] = header.job.settings[key]
    shuffled.aa_later = 'x'
    const file = join(tempDir(), 'shuffled.jsonl')
    writeFileSync(file, [JSON.stringify({ ...header, job: { ...header.job, settings: shuffled } }), ...lines.slice(1)].join('\n'))

    const second = await reexport(file, 'second')
    const third = await reexport(join(tempDir(), 'second.jsonl'), 'third')
    expect(third).toBe(second)
    expect(Object.keys(headerOf(second).job.settings)).toEqual([...keys, 'aa_later', 'zz_later'])
    // Only the header's settings changed: their values, and every event line, are the original's.
    expect(headerOf(second).job.settings).toEqual({ ...header.job.settings, aa_later: 'x', zz_later: 1 })
    expect(second.split('\n').slice(1)).toEqual(lines.slice(1))
  })
})
