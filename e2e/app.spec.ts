import { expect, test, type Page } from '@playwright/test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import WebSocket from 'ws'
import type { FakeServer } from '../src-main/core/providers/testing/fake-http'
import type { FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'
import { apiClient } from './support/api-client'
import { projectRule, startArborServer, type ArborServer } from './support/arbor-server'
import { riskyCommand, rootAnswer, rootMarker, startFakeModel } from './support/fake-model'

// A new user's whole journey, all through the UI: enter a key, type a task, watch a real agent
// (the project's own OpenAI-compatible server) delegate, decide its risky command, export.
const secret = 'sk-e2e-DO-NOT-LEAK-7f3c9a1b2d4e'
let server: ArborServer
let model: FakeServer<FakeOpenAIResponse> | null = null

test.afterEach(async () => {
  await server?.stop()
  await model?.close()
  model = null
})

/** Everything the page receives over HTTP and the WebSocket (to search for the key), and what it sends. */
function recordTraffic(page: Page): { received: string[]; sent: string[] } {
  const traffic = { received: [] as string[], sent: [] as string[] }
  page.on('response', async (response) => {
    const body = await response.body().catch(() => Buffer.alloc(0))
    traffic.received.push(`${response.url()} ${JSON.stringify(response.headers())} ${body.toString('utf8')}`)
  })
  page.on('websocket', (socket) => {
    socket.on('framereceived', (frame) => traffic.received.push(String(frame.payload)))
    socket.on('framesent', (frame) => traffic.sent.push(String(frame.payload)))
  })
  return traffic
}

const budgetUsed = async (page: Page): Promise<number> => Number(await page.getByTestId('budget-tokens').getAttribute('data-used'))

test('a new user enters a key, starts a real job, decides its risky command and exports the trace', async ({ page }) => {
  model = await startFakeModel()
  server = await startArborServer()
  const traffic = recordTraffic(page)
  const arbor = new ArborPage(page)
  await arbor.open(server.url)

  // 1. Settings: base URL and key for the OpenAI-compatible server, then test the connection.
  await page.getByTestId('open-settings').click()
  await expect(page.getByTestId('settings')).toBeVisible()
  const card = page.getByTestId('provider-openai_compatible')
  await card.getByTestId('base-url-openai_compatible').fill(`${model.url}/v1`)
  await card.getByTestId('provider-save-openai_compatible').click()
  await card.getByTestId('key-input-openai_compatible').fill(secret)
  // Test connection tests what the form shows: the key typed, before it is saved.
  await card.getByTestId('test-connection-openai_compatible').click()
  await expect(card.getByTestId('connection-result-openai_compatible')).toHaveAttribute('data-ok', 'true')
  expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${secret}`)
  await card.getByTestId('key-save-openai_compatible').click()
  await expect(card).toContainText(secret.slice(-4))
  await expect(card.getByTestId('key-input-openai_compatible')).toHaveValue('')
  await card.getByTestId('test-connection-openai_compatible').click()
  const result = card.getByTestId('connection-result-openai_compatible')
  await expect(result).toHaveAttribute('data-ok', 'true')
  await expect(result).toContainText('pong')
  await expect(result).toContainText(/\d+ ms/)
  await arbor.screenshot('settings')
  await page.getByTestId('settings-close').click()

  // 2. The new-job form: a real task for the OpenAI-compatible provider with a token budget.
  await page.getByTestId('new-job').click()
  const dialog = page.getByTestId('new-job-dialog')
  await dialog.getByTestId('job-field-task').fill(`${rootMarker}: read the key files, then remove the stale notes file.`)
  // The form starts on the provider that has a key, with its saved server, not on the scripted one.
  await expect(dialog.getByTestId('job-field-provider')).toHaveValue('openai_compatible')
  await dialog.getByTestId('job-field-provider').selectOption('openai_compatible')
  await expect(dialog.getByTestId('job-field-base_url')).toHaveValue(`${model.url}/v1`)
  await dialog.getByTestId('job-field-job_token_budget').fill('60000')
  await arbor.screenshot('new-job')
  await dialog.getByTestId('job-field-task').press('Control+Enter')
  await expect(dialog).toBeHidden()

  // The root delegates to two explore children that read real files; the tree grows.
  await expect(arbor.root).toBeVisible()
  await expect(arbor.children).toHaveCount(2)
  await expect(page.locator('[data-testid="agent-node"][data-depth="1"][data-profile="explore"]')).toHaveCount(2)

  // 3. The root's risky command waits in the approvals panel; the job list says so.
  const approval = page.getByTestId('approval')
  await expect(approval).toBeVisible({ timeout: 30_000 })
  await expect(approval).toContainText(riskyCommand)
  await expect(approval).toContainText('deletes files')
  await expect(page.locator('[data-testid="job-item"] [data-testid="job-waiting"]')).toHaveText(/1/)
  const usedWhileWaiting = await budgetUsed(page)
  expect(usedWhileWaiting).toBeGreaterThan(0)
  await arbor.screenshot('approval-pending')
  const firstApproval = await approval.getAttribute('data-approval-id')
  await approval.getByTestId('approval-deny').click()
  // Denied: nothing ran. The model asks again; this time approve it.
  await expect(page.locator(`[data-testid="approval"]:not([data-approval-id="${firstApproval}"])`)).toBeVisible({ timeout: 30_000 })
  expect(existsSync(path.join(server.project, 'notes.txt'))).toBe(true)
  await page.getByTestId('approval-approve').click()
  await expect.poll(() => existsSync(path.join(server.project, 'notes.txt')), { timeout: 20_000 }).toBe(false)

  // 4. The job completes; the budget meter moved on.
  await arbor.waitForJobEnd('completed')
  await expect(arbor.root).toHaveAttribute('data-status', 'completed')
  await expect.poll(() => budgetUsed(page)).toBeGreaterThan(usedWhileWaiting)
  await expect(page.getByTestId('budget-tokens')).toHaveAttribute('data-budget', '60000')
  // The root's trace opened when the job started and tails it: its answer is there at the end.
  const rootId = await arbor.root.getAttribute('data-agent-id')
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${rootId}"]`)
  await expect(inspector).toContainText(rootAnswer)
  // The project's AGENTS.md went into the root's system prompt (not a child's), and its inspector says so.
  await expect(inspector.getByTestId('inspector-instructions')).toContainText('AGENTS.md')
  const conversations = model.requests
    .map((request) => (request.body as { messages?: Array<{ content: unknown }> } | null)?.messages ?? [])
    .filter((messages) => messages.length > 1)
    .map(([system, firstUser]) => ({ system: JSON.stringify(system), task: JSON.stringify(firstUser) }))
  const rootCalls = conversations.filter((call) => call.task.includes(rootMarker))
  const childCalls = conversations.filter((call) => call.task.includes('AREA-'))
  expect(rootCalls.length).toBeGreaterThan(0)
  expect(rootCalls.every((call) => call.system.includes(projectRule))).toBe(true)
  expect(childCalls.length).toBeGreaterThan(0)
  expect(childCalls.some((call) => call.system.includes(projectRule))).toBe(false)
  await arbor.screenshot('job-finished')

  // 5. Export JSONL and OTLP.
  const drawn = await arbor.graphTree()
  const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()])
  const lines = readFileSync(await jsonl.path(), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines[0]).toMatchObject({ type: 'trace.header', job: { status: 'completed', settings: { provider: 'openai_compatible' } } })
  const ends = lines.filter((line) => line.type === 'agent.end')
  expect(Object.fromEntries(ends.map((line) => [line.agent_id, line.data.status]))).toEqual(
    Object.fromEntries(Object.entries(drawn).map(([id, node]) => [id, node.status])),
  )
  expect(ends.find((line) => line.depth === 0)?.data.result).toBe(rootAnswer)
  const decisions = lines.filter((line) => line.type === 'approval.decision').map((line) => [line.data.decision, line.data.by])
  expect(decisions).toEqual([
    ['denied', 'user'],
    ['approved', 'user'],
  ])
  await page.getByTestId('export-menu').click()
  const [otlp] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-otlp').click()])
  const spans = JSON.parse(readFileSync(await otlp.path(), 'utf8')).resourceSpans[0].scopeSpans[0].spans as Array<{ name: string }>
  expect(spans.filter((span) => span.name.startsWith('invoke_agent'))).toHaveLength(3)

  // 6. Reload: the settings and the recent project are still there; the key is nowhere.
  await page.reload()
  await expect(page.getByTestId('job-list')).toBeVisible()
  await page.getByTestId('open-settings').click()
  const again = page.getByTestId('provider-openai_compatible')
  await expect(again).toContainText(secret.slice(-4))
  await expect(again.getByTestId('base-url-openai_compatible')).toHaveValue(`${model.url}/v1`)
  await page.getByTestId('settings-close').click()
  await page.getByTestId('project-name').click()
  await expect(page.getByTestId('start-screen')).toBeVisible()
  await expect(page.getByTestId('recent-project').first()).toContainText(path.basename(server.project))
  await arbor.screenshot('start-screen')

  expect(await page.content()).not.toContain(secret)
  expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).not.toContain(secret)
  expect(traffic.received.length).toBeGreaterThan(10)
  expect(traffic.received.filter((entry) => entry.includes(secret))).toEqual([])
  // It went one way, twice: the page sent it to be tested as typed, then to be stored.
  expect(traffic.sent.filter((entry) => entry.includes(secret)).map((entry) => JSON.parse(entry).method)).toEqual([
    'testConnection',
    'setProviderKey',
  ])
  expect(readFileSync(await jsonl.path(), 'utf8')).not.toContain(secret)
  // The key reached the model server, and only it.
  expect(model.requests.some((request) => JSON.stringify(request.headers).includes(secret))).toBe(true)
})

test('new-job validation: each bad field gets its error, an unpriced cost budget is refused, nothing starts till it is right; no key for its own server', async ({
  page,
}) => {
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('new-job').click()
  const dialog = page.getByTestId('new-job-dialog')
  const fill = async (fields: Record<string, string>) => {
    for (const [field, value] of Object.entries(fields)) await dialog.getByTestId(`job-field-${field}`).fill(value)
  }
  await dialog.getByTestId('job-field-provider').selectOption('openai_compatible')
  await fill({ base_url: 'not a url', max_depth: '9', max_concurrent_children: '0', job_token_budget: '-5', agent_timeout_s: '1.5' })
  await dialog.getByTestId('start-job').click()
  for (const field of ['task', 'base_url', 'max_depth', 'max_concurrent_children', 'job_token_budget', 'agent_timeout_s']) {
    await expect(dialog.getByTestId(`job-error-${field}`), field).toBeVisible()
  }
  await arbor.screenshot('new-job-errors')

  await fill({
    task: 'Summarise the project',
    base_url: 'http://127.0.0.1:9/v1',
    max_depth: '1',
    max_concurrent_children: '2',
    job_token_budget: '',
    agent_timeout_s: '',
    model: 'my-local-model',
    job_cost_budget: '1',
  })
  await dialog.getByTestId('start-job').click()
  const costError = dialog.getByTestId('job-error-job_cost_budget')
  await expect(costError).toContainText('no price')
  await expect(costError.getByRole('button')).toBeVisible()
  await expect(dialog.getByTestId('job-error-task')).toHaveCount(0)
  await expect(page.getByTestId('job-item')).toHaveCount(0)
  await arbor.screenshot('new-job-unpriced')

  // A saved key goes only to its saved base URL: the server refuses the job's own, beside the
  // field, and the footer points at it; fixing the field clears both.
  const client = await apiClient(server)
  await client.ask('setProviderConfig', { provider: 'openai_compatible', base_url: 'http://127.0.0.1:8/v1', model: 'm', light_model: null })
  await client.ask('setProviderKey', { provider: 'openai_compatible', key: 'sk-e2e-saved-key-000000' })
  client.close()
  await fill({ job_cost_budget: '', base_url: 'http://127.0.0.1:9/v1' })
  await dialog.getByTestId('start-job').click()
  await expect(dialog.getByTestId('job-error-base_url')).toContainText('only to the base URL in Settings')
  await expect(dialog.getByTestId('job-error-form')).toHaveText('The job was not started: one field needs attention.')
  await fill({ base_url: 'http://127.0.0.1:8/v1' })
  await expect(dialog.getByTestId('job-error-base_url')).toHaveCount(0)
  await expect(dialog.getByTestId('job-error-form')).toHaveCount(0)
  await expect(page.getByTestId('job-item')).toHaveCount(0)

  // The other way out: the job's own server needs no key, so the job sends none, and starts.
  await fill({ base_url: 'http://127.0.0.1:9/v1' })
  await dialog.getByTestId('start-job').click()
  await expect(dialog.getByTestId('job-error-base_url')).toContainText('or send no key')
  await dialog.getByTestId('job-field-no_key').click()
  await expect(dialog.getByTestId('job-error-base_url')).toHaveCount(0)
  await expect(dialog.getByTestId('job-error-form')).toHaveCount(0)
  await expect(dialog.getByTestId('job-field-no_key')).toBeChecked()
  await arbor.screenshot('new-job-no-key')
  await dialog.getByTestId('start-job').click()
  await expect(page.getByTestId('job-item')).toHaveCount(1)
  const view = await apiClient(server)
  const { jobs } = (await view.ask('listJobs', {})) as { jobs: Array<{ settings: Record<string, unknown> }> }
  view.close()
  expect(jobs[0]?.settings).toMatchObject({ base_url: 'http://127.0.0.1:9/v1', no_key: true })
})

test('sandbox and spawn guards: the no-sandbox gate, the badges on the running job, and what the next form remembers', async ({ page }) => {
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('new-job').click()
  const dialog = page.getByTestId('new-job-dialog')
  await dialog.getByTestId('job-field-task').fill('Explore the shop')
  await expect(dialog.getByTestId('job-field-max_spawns_per_turn')).toHaveValue('10')
  await expect(dialog.getByTestId('job-field-max_spawns_per_minute')).toHaveValue('60')
  await dialog.getByTestId('job-field-max_spawns_per_turn').fill('-1')
  await dialog.getByTestId('job-field-max_spawns_per_turn').blur()
  await expect(dialog.getByTestId('job-error-max_spawns_per_turn')).toContainText('at least 0')
  await dialog.getByTestId('job-field-max_spawns_per_turn').fill('4')
  await dialog.getByTestId('job-field-max_spawns_per_minute').fill('0')
  await dialog.getByTestId('job-field-agent_timeout_s').fill('600')
  await expect(dialog.getByTestId('job-error-max_spawns_per_turn')).toHaveCount(0)
  await dialog.getByTestId('job-field-allow_network').check()

  // No sandbox: a warning and a second tick, and Start stays off until it is ticked.
  const start = dialog.getByTestId('start-job')
  await expect(dialog.getByTestId('no-sandbox-warning')).toHaveCount(0)
  await dialog.getByTestId('job-field-no_sandbox').check()
  await expect(dialog.getByTestId('no-sandbox-warning')).toBeVisible()
  await expect(dialog.getByTestId('no-sandbox-warning')).toContainText('can read, change and delete any file you can')
  await expect(start).toBeDisabled()
  await expect(dialog.getByTestId('start-gated')).toBeVisible()
  // The keyboard shortcut does not get past it either: the confirmation gets the error and the focus.
  await dialog.getByTestId('job-field-task').press('Control+Enter')
  await expect(dialog.getByTestId('job-error-no_sandbox_confirmed')).toBeVisible()
  await expect(dialog.getByTestId('job-field-no_sandbox_confirmed')).toBeFocused()
  await expect(page.getByTestId('job-item')).toHaveCount(0)
  await dialog.getByTestId('job-error-no_sandbox_confirmed').scrollIntoViewIfNeeded()
  await arbor.screenshot('new-job-no-sandbox-gate')
  // Switching it off and on again asks again.
  await dialog.getByTestId('job-field-no_sandbox_confirmed').check()
  await expect(start).toBeEnabled()
  await dialog.getByTestId('job-field-no_sandbox').uncheck()
  await expect(dialog.getByTestId('no-sandbox-warning')).toHaveCount(0)
  await dialog.getByTestId('job-field-no_sandbox').check()
  await expect(dialog.getByTestId('job-field-no_sandbox_confirmed')).not.toBeChecked()
  await expect(start).toBeDisabled()
  await dialog.getByTestId('job-field-no_sandbox_confirmed').check()
  await expect(dialog.getByTestId('job-error-no_sandbox_confirmed')).toHaveCount(0)
  await arbor.screenshot('new-job-sandbox')
  await start.click()
  await expect(dialog).toBeHidden()

  // The running job says how its commands run.
  await expect(arbor.root).toBeVisible()
  const toolbar = page.getByTestId('job-toolbar')
  await expect(toolbar.getByTestId('job-no-sandbox')).toHaveText('no sandbox')
  await expect(toolbar.getByTestId('job-network-on')).toHaveText('network on')
  await arbor.screenshot('job-no-sandbox')
  await arbor.waitForJobEnd('completed')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()])
  const header = JSON.parse(readFileSync(await download.path(), 'utf8').split('\n')[0]!)
  expect(header.job.settings).toMatchObject({
    no_sandbox: true,
    allow_network: true,
    agent_timeout_ms: 600_000,
    max_spawns_per_turn: 4,
    max_spawns_per_minute: 0,
  })

  // The next form keeps the network and the guards, and asks for no sandbox again.
  await page.getByTestId('new-job').click()
  await expect(dialog.getByTestId('job-field-allow_network')).toBeChecked()
  await expect(dialog.getByTestId('job-field-max_spawns_per_turn')).toHaveValue('4')
  await expect(dialog.getByTestId('job-field-no_sandbox')).not.toBeChecked()
  await expect(dialog.getByTestId('no-sandbox-warning')).toHaveCount(0)
})

test('opens a trace read-only: a good file shows the same tree; a truncated or bad file names its line and imports nothing', async ({
  page,
  browser,
}) => {
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  const original = await arbor.graphTree()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()])
  const trace = readFileSync(await download.path(), 'utf8')
  await server.stop()

  // A second Arbor with its own database, on its start screen.
  server = await startArborServer({ openProject: false })
  const viewer = await browser.newPage()
  await viewer.goto(server.url)
  await expect(viewer.getByTestId('start-screen')).toBeVisible()
  const lines = trace.trimEnd().split('\n')
  const upload = async (name: string, text: string) => {
    const file = path.join(path.dirname(server.dbFile), name)
    writeFileSync(file, text)
    await viewer.getByTestId('trace-file-input').setInputFiles(file)
  }

  await upload('truncated.jsonl', trace.slice(0, trace.length - 40))
  await expect(viewer.getByTestId('import-error')).toContainText(`line ${lines.length}`)
  const bad = [...lines]
  bad[5] = '{"type": "agent.start", "oops"'
  await upload('bad-line.jsonl', bad.join('\n') + '\n')
  await expect(viewer.getByTestId('import-error')).toContainText('line 6')
  await viewer.screenshot({ path: path.join(path.dirname(ArborPage.screenshotFile('x')), 'import-error.png') })
  expect(await jobCount(server)).toBe(0)

  await upload('good.jsonl', trace)
  await expect(viewer.locator('[data-testid="agent-node"]')).toHaveCount(Object.keys(original).length)
  await expect(viewer.getByTestId('job-imported')).toBeVisible()
  await expect(viewer.getByTestId('pause-toggle')).toHaveCount(0)
  await expect(viewer.getByTestId('kill-job')).toHaveCount(0)
  expect(await new ArborPage(viewer).graphTree()).toEqual(original)
  await new ArborPage(viewer).screenshot('opened-trace')
  expect(await jobCount(server)).toBe(1)
  await viewer.close()
})

/** Jobs in the server's database, asked over its WebSocket. */
async function jobCount(target: ArborServer): Promise<number> {
  const socket = new WebSocket(`${target.origin.replace('http', 'ws')}/ws?token=${target.token}`)
  await new Promise((resolve) => socket.on('open', resolve))
  const reply = await new Promise<{ result: { ok: boolean; value: { jobs: unknown[] } } }>((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(String(data))))
    socket.send(JSON.stringify({ id: 1, method: 'listJobs', input: {} }))
  })
  socket.close()
  return reply.result.value.jobs.length
}

test('the price table: add a model and edit it; the new-job form then knows its price', async ({ page }) => {
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('open-settings').click()
  const prices = page.getByTestId('prices')
  await expect(prices.getByTestId('price-row-gpt-4o')).toHaveAttribute('data-source', 'builtin')
  await prices.getByTestId('price-add-model').fill('house-model-7b')
  await prices.getByTestId('price-add-input').fill('0.5')
  await prices.getByTestId('price-add-output').fill('abc')
  await prices.getByTestId('price-add-save').click()
  await expect(prices.getByTestId('price-add-error-output')).toBeVisible()
  await prices.getByTestId('price-add-output').fill('1.5')
  await prices.getByTestId('price-add-save').click()
  const row = prices.getByTestId('price-row-house-model-7b')
  await expect(row).toHaveAttribute('data-source', 'custom')
  await row.getByTestId('price-output-house-model-7b').fill('2')
  await row.getByTestId('price-save-house-model-7b').click()
  await expect(row.getByTestId('price-output-house-model-7b')).toHaveValue('2')
  await arbor.screenshot('settings-prices')
  await page.getByTestId('settings-close').click()

  // The new model now has a price, so a cost budget on it is accepted by the form.
  await page.getByTestId('new-job').click()
  const dialog = page.getByTestId('new-job-dialog')
  await dialog.getByTestId('job-field-task').fill('Summarise the project')
  await dialog.getByTestId('job-field-provider').selectOption('openai_compatible')
  await dialog.getByTestId('job-field-base_url').fill('http://127.0.0.1:9/v1')
  await dialog.getByTestId('job-field-model').fill('house-model-7b')
  await dialog.getByTestId('job-field-job_cost_budget').fill('1')
  await expect(dialog.getByTestId('job-unpriced-model')).toHaveCount(0)
  await dialog.getByTestId('job-field-model').fill('another-model')
  await dialog.getByTestId('job-field-job_cost_budget').blur()
  await expect(dialog.getByTestId('job-unpriced-model')).toBeVisible()
})

test('Escape closes Settings even after the button that had the focus became disabled', async ({ page }) => {
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('open-settings').click()
  const card = page.getByTestId('provider-openai')
  await card.getByTestId('key-input-openai').fill('sk-e2e-escape-000000000')
  await card.getByTestId('key-save-openai').click()
  await expect(card).toContainText('0000')
  // The save button is disabled once the key is saved: the focus it held is gone from the page.
  await expect(card.getByTestId('key-save-openai')).toBeDisabled()
  expect(await page.evaluate('document.activeElement === document.body')).toBe(true)
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('settings')).toHaveCount(0)
})
