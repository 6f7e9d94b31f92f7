import path from 'node:path'
import { ESLint } from 'eslint'
import { beforeAll, describe, expect, it } from 'vitest'

// The rule as `npm run lint` runs it: the project's own eslint.config.js, on snippets put where a
// renderer or preload file would sit (nothing is written to disk).
const root = path.resolve(import.meta.dirname, '..')
let eslint: ESLint

beforeAll(() => {
  eslint = new ESLint({ cwd: root })
})

async function refusals(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) })
  return (result?.messages ?? []).filter((message) => message.ruleId === 'arbor/renderer-boundary').map((message) => message.message)
}

describe('arbor/renderer-boundary', () => {
  it('lets the renderer import the pure core modules through @core and its own files relatively', async () => {
    const code = [
      "import type { ArborApi } from '@core/api/contract'",
      "import { apiMethods } from '@core/api/methods'",
      "import { newJobSchema } from '@core/api/job-form'",
      "import { ArborError } from '@core/errors'",
      "import type { TraceEvent } from '@core/trace/events'",
      "import { foldTimeline } from '@core/trace/timeline'",
      "import { priceFor } from '@core/providers/pricing'",
      "import { errorText } from '../store/error-text'",
      "import { create } from 'zustand'",
      'export const all = [apiMethods, newJobSchema, ArborError, foldTimeline, priceFor, errorText, create]',
      'export type Both = [ArborApi, TraceEvent]',
    ].join('\n')
    expect(await refusals(code, 'src-renderer/src/graph/probe.ts')).toEqual([])
  }, 60_000)

  it('refuses a relative path out of src-renderer/src, core modules off the allowlist, Node built-ins and SQLite', async () => {
    const code = [
      "import { traceEventSchema } from '../../../src-main/core/trace/events'",
      "import { TraceWriter } from '@core/store/writer'",
      "import { Supervisor } from '@core/supervisor/supervisor'",
      "import { readFileSync } from 'node:fs'",
      "import path from 'path'",
      "import Database from 'better-sqlite3'",
      "export { App } from '../../App'",
      "export const later = () => import('@core/engine')",
      'export const all = [traceEventSchema, TraceWriter, Supervisor, readFileSync, path, Database]',
    ].join('\n')
    const messages = await refusals(code, 'src-renderer/src/graph/probe.ts')
    expect(messages).toHaveLength(8)
    expect(messages[0]).toContain('leaves src-renderer/src')
    expect(messages[1]).toContain('"@core/store/writer" is not one of the pure core modules')
    expect(messages[2]).toContain('"@core/supervisor/supervisor" is not one of the pure core modules')
    expect(messages.slice(3, 6).every((message) => message.includes('runs in the main process only'))).toBe(true)
    expect(messages[6]).toContain('"../../App" leaves src-renderer/src')
    expect(messages[7]).toContain('"@core/engine" is not one of the pure core modules')
  }, 60_000)

  it('lets a test import any core module, but not leave its folder by a relative path', async () => {
    const code = [
      "import { createDispatcher } from '@core/api/dispatcher'",
      "import { createWsClient } from '../../src-renderer/src/api/ws-client'",
      'export const all = [createDispatcher, createWsClient]',
    ].join('\n')
    expect(await refusals(code, 'src-preload/probe.test.ts')).toEqual([expect.stringContaining('leaves src-preload')])
    expect(await refusals(code.replace('../../src-renderer/src/api/', './'), 'src-renderer/src/api/probe.test.ts')).toEqual([])
  }, 60_000)

  it('keeps the preload inside src-preload', async () => {
    const code = [
      "import type { ArborApi } from '../src-main/core/api/contract'",
      "import { ipcChannel } from '@core/api/methods'",
      'export const all = [ipcChannel]',
      'export type Api = ArborApi',
    ].join('\n')
    expect(await refusals(code, 'src-preload/probe.ts')).toEqual([expect.stringContaining('leaves src-preload')])
  }, 60_000)
})
