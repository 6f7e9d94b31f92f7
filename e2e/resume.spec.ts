import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { getAgents } from '../src-main/core/store/queries'
import { dataFolderOf, makeFixtureProject } from './support/arbor-server'
import { expect, test } from './support/fixtures'
import { ArborPage } from './page-models/arbor-page'

// An interrupted job resumed from the UI: `arbor run` (the built CLI) is SIGKILLed while its
// child runs a command, `arbor serve` then opens the same database and shows the job
// interrupted with "Resume job"; pressed, the job runs again and completes, the child going on
// from its history.
const rootMarker = 'E2E-RESUME'
const repoRoot = path.resolve(import.meta.dirname, '..')

test('an interrupted job shows Resume job; resumed, it runs again and completes', async ({ page, fakeModel, arborServer }) => {
  const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'WAITER',
        turns: [{ tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] }, finish('WAITED')],
      },
      {
        match: rootMarker,
        turns: [
          {
            tool_calls: [{ name: 'task', arguments: { description: 'WAITER', prompt: 'WAITER: wait for go.', subagent_type: 'worker' } }],
          },
          { tool_calls: [{ name: 'await_tasks', arguments: {} }] },
          { delay_ms: 1500, ...finish('RESUMED ANSWER: the waiter waited.') },
        ],
      },
    ]),
  })
  const project = makeFixtureProject()
  const dbFile = path.join(dataFolderOf(project), 'arbor.db')
  const run = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'bin/arbor.js'),
      'run',
      project,
      '--task',
      `${rootMarker}: have the waiter wait`,
      '--provider',
      'openai_compatible',
      '--model',
      'local-model',
      '--base-url',
      `${model.url}/v1`,
      '--db',
      dbFile,
    ],
    { stdio: 'ignore', env: { ...process.env, ARBOR_DATA_DIR: dataFolderOf(project) } },
  )
  const exited = new Promise((resolve) => run.once('exit', resolve))
  try {
    // Killed once the child's command runs (as the trace shows it).
    await expect
      .poll(
        () => {
          if (!existsSync(dbFile)) return false
          const db = new Database(dbFile, { readonly: true, fileMustExist: true })
          try {
            const job = db.prepare<[], { id: string }>('SELECT id FROM jobs').get()
            return job ? getAgents(db, job.id).some((agent) => agent.depth === 1 && agent.current_tool === 'bash') : false
          } catch {
            return false
          } finally {
            db.close()
          }
        },
        { timeout: 60_000 },
      )
      .toBe(true)
  } finally {
    run.kill('SIGKILL')
    await exited
  }

  const server = await arborServer({ project })
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.waitForJobEnd('interrupted')
  await page.locator('[data-testid="job-item"][data-status="interrupted"]').first().click()
  const resume = page.getByTestId('resume-job')
  await expect(resume).toBeVisible()
  await expect(page.getByTestId('resume-bar')).toContainText('Arbor stopped while this job ran')
  await expect(arbor.nodes).toHaveCount(2)
  await arbor.screenshot('resume-interrupted')

  await resume.click()
  // It runs again: the same job and nodes, the bar gone.
  await expect(page.locator('[data-testid="job-item"][data-status="running"]')).toHaveCount(1)
  await expect(page.getByTestId('resume-bar')).toBeHidden()
  await expect(page.locator('[data-testid="agent-node"][data-depth="0"]')).toHaveAttribute('data-status', 'running')
  await arbor.screenshot('resume-running')
  await arbor.waitForJobEnd('completed')
  await expect(page.getByTestId('job-answer-text')).toContainText('RESUMED ANSWER')
  await expect(arbor.nodes).toHaveCount(2)
  await expect(page.locator('[data-testid="job-item"]')).toHaveCount(1)
  await arbor.screenshot('resume-completed')
  // The waiter went on from its history: two requests in all, the second with its command answered.
  const waiter = model.requests.filter(
    (request) => JSON.stringify(request.body).includes('WAITER: wait for go.') && !JSON.stringify(request.body).includes(rootMarker),
  )
  expect(waiter).toHaveLength(2)
  expect(JSON.stringify(waiter[1]!.body)).toContain('interrupted: Arbor stopped while this tool call ran')
})
