import { expect, test } from '@playwright/test'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ArborPage } from './page-models/arbor-page'
import { apiClient } from './support/api-client'
import { makeFixtureProject, openInArbor } from './support/arbor-server'
import { longTrace } from './support/long-trace'

// A trace file is written by whoever sent it: the folder its header names as the job's project is
// data. `arbor open` (the real built CLI) shows the job read-only and never opens that folder, so
// neither the page nor any local process holding the token can start a job there.
let opened: Awaited<ReturnType<typeof openInArbor>> | null = null

test.afterEach(async () => {
  await opened?.stop()
  opened = null
})

/** Every file under `dir`, relative to it: what a job run there would change. */
const filesIn = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()

test('a trace whose header names a folder on this machine opens read-only, without opening that folder', async ({ page }) => {
  const victim = makeFixtureProject()
  const before = filesIn(victim)
  const { jsonl, jobId } = longTrace(20)
  const header = '"project":"/projects/long"'
  expect(jsonl).toContain(header)
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-hostile-')), 'trace.jsonl')
  writeFileSync(file, jsonl.replace(header, `"project":${JSON.stringify(victim)}`))

  opened = await openInArbor(file)
  expect(opened.output()).toContain(`The trace says it was recorded in ${victim}; that folder is not opened.`)
  // What the user came for: the root's answer, printed and shown.
  expect(opened.output()).toContain('result:\nRead every module.')

  // The page: the job, read-only; the folder named as information; nothing to start.
  const arbor = new ArborPage(page)
  await arbor.open(opened.url)
  await expect(page.getByTestId('job-imported')).toBeVisible()
  await expect(page.getByTestId('job-recorded-in')).toHaveText(`recorded in ${victim}`)
  await expect(page.getByTestId('job-answer-text')).toHaveText('Read every module.')
  await expect(arbor.nodes.first()).toBeVisible()
  await expect(page.getByTestId('new-job')).toHaveCount(0)
  await expect(page.getByTestId('run-demo')).toHaveCount(0)
  await expect(page.getByTestId('start-scripted')).toHaveCount(0)
  await arbor.screenshot('open-untrusted-trace')

  // What any local process with the printed token may ask: no project is open, the folder is
  // not among the recent ones, and a job of any kind is refused.
  const client = await apiClient(opened)
  try {
    expect(await client.ask<{ project: unknown }>('getState', {})).toMatchObject({ project: null })
    const recent = await client.ask<{ projects: Array<{ path: string }> }>('listRecentProjects', {})
    expect(recent.projects.map((project) => project.path)).not.toContain(victim)
    await expect(client.ask('startJob', { kind: 'demo' })).rejects.toThrow('open a project folder first')
    await expect(client.ask('startJob', { kind: 'scripted', task: 'write a file' })).rejects.toThrow('open a project folder first')
    // The imported job itself is read-only.
    await expect(client.ask('setAutoApprove', { job_id: jobId, value: true })).rejects.toThrow('read-only')
  } finally {
    client.close()
  }
  expect(filesIn(victim)).toEqual(before)
})
