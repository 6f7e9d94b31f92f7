import { expect, test } from '@playwright/test'
import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'

// The real UI, built, served by the real `arbor serve`, driven in Debian's Chromium.
let server: ArborServer

test.beforeEach(async () => {
  server = await startArborServer()
})
test.afterEach(async () => {
  await server.stop()
})

test('refuses every HTTP and WebSocket request without the token', async ({ request }) => {
  for (const target of ['/', '/index.html', '/export/job_x.jsonl', '/?token=wrong']) {
    const response = await request.get(`${server.origin}${target}`)
    expect(response.status(), target).toBe(401)
  }
  // Uploads: no token, a wrong one, or a page of another origin holding the right one.
  const trace = '{"type":"trace.header"}\n'
  expect((await request.post(`${server.origin}/import`, { data: trace })).status()).toBe(401)
  expect((await request.post(`${server.origin}/import?token=nope`, { data: trace })).status()).toBe(401)
  const crossSite = await request.post(`${server.origin}/import?token=${server.token}`, {
    data: trace,
    headers: { origin: 'http://evil.example' },
  })
  expect(crossSite.status()).toBe(403)
  const page = await request.get(server.url)
  expect(page.status()).toBe(200)
  expect(page.headers()['content-security-policy']).toContain("script-src 'self'")

  const upgrade = (url: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(url)
      socket.on('open', () => {
        socket.close()
        resolve(101)
      })
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      socket.on('error', () => resolve(-1))
    })
  const wsBase = server.origin.replace('http', 'ws')
  expect(await upgrade(`${wsBase}/ws`)).toBe(401)
  expect(await upgrade(`${wsBase}/ws?token=nope`)).toBe(401)
  expect(await upgrade(`${wsBase}/ws?token=${server.token}`)).toBe(101)
})

test('rejects a malformed API request with a clear error and keeps serving', async () => {
  const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/ws?token=${server.token}`)
  await new Promise((resolve) => socket.on('open', resolve))
  const ask = (frame: string) =>
    new Promise<{ id: number | null; result: { ok: boolean; error?: { code: string; message: string } } }>((resolve) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data))))
      socket.send(frame)
    })
  const bad = await ask(JSON.stringify({ id: 1, method: 'killAgent', input: { agent_id: 42 } }))
  expect(bad.result).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
  expect(bad.result.error?.message).toContain('agent_id')
  expect((await ask('not json')).result.error?.code).toBe('invalid_request')
  expect((await ask(JSON.stringify({ id: 2, method: 'dropTables', input: {} }))).result.error?.code).toBe('unknown_method')
  const write = await ask(
    JSON.stringify({ id: 4, method: 'exportJob', input: { job_id: 'job_x', path: '/tmp/arbor-should-not-exist.jsonl' } }),
  )
  expect(write.result.error?.message).toContain('/export/')
  const good = await ask(JSON.stringify({ id: 3, method: 'listJobs', input: {} }))
  expect(good).toMatchObject({ id: 3, result: { ok: true } })
  socket.close()
})

test('runs the demo: the root and its children appear while it runs, then complete', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await expect(arbor.children).toHaveCount(4)
  await expect(arbor.nodesWithStatus('running').first()).toBeVisible()
  await expect(arbor.jobStatus).toContainText('running')
  await arbor.screenshot('demo-running')
  // No answer while the root runs.
  await expect(page.getByTestId('job-answer')).toHaveCount(0)
  await arbor.waitForJobEnd('completed')
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(5)
  // The root's answer, from the live agent.end, under the toolbar; and the same after a reload (getTree).
  const answer = page.getByTestId('job-answer-text')
  await expect(answer).toContainText('Survey finished')
  // A tree shorter than the pane is drawn from the top, after the fit (f) too: no empty band above the root.
  await page.keyboard.press('f')
  await expect
    .poll(async () => {
      const pane = await page.locator('.react-flow').boundingBox()
      const root = await arbor.root.boundingBox()
      return pane && root ? root.y - pane.y : Infinity
    })
    .toBeLessThan(80)
  await arbor.screenshot('demo-completed')
  await page.reload()
  await expect(answer).toContainText('Survey finished')
})

test('pause holds the spawns as ghost nodes and resume releases them', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  // The demo root thinks for 2.5 s before it delegates: pause before then.
  await arbor.pauseToggle.click()
  await expect(arbor.pauseToggle).toHaveText(/Resume spawning/)
  await expect(arbor.nodesWithStatus('held')).toHaveCount(4)
  await expect(arbor.nodesWithStatus('running')).toHaveCount(1)
  await arbor.screenshot('paused-held')
  await arbor.pauseToggle.click()
  await expect(arbor.pauseToggle).toHaveText(/Pause spawning/)
  await expect(arbor.nodesWithStatus('held')).toHaveCount(0)
  await arbor.waitForJobEnd('completed')
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(5)
})

test('kills a running child: it is marked killed and the root still finishes', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  const victim = page.locator('[data-testid="agent-node"][data-depth="1"][data-status="running"]').first()
  await expect(victim).toBeVisible()
  const victimId = await victim.getAttribute('data-agent-id')
  await victim.getByTestId('node-kill').click()
  // One agent, not the root: it goes at once (a kill asks first only for the root or more than five agents).
  await expect(page.getByTestId('kill-confirm')).toHaveCount(0)
  const killed = page.locator(`[data-testid="agent-node"][data-agent-id="${victimId}"]`)
  await expect(killed).toHaveAttribute('data-status', 'killed')
  await arbor.screenshot('child-killed')
  await arbor.waitForJobEnd('completed')
  await expect(arbor.root).toHaveAttribute('data-status', 'completed')
  await expect(killed).toHaveAttribute('data-status', 'killed')
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(4)
})

test('the subagent approval mode persists across a reload, and A cycles it', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await expect(arbor.subagentApprovals).toHaveAttribute('data-mode', 'deny')
  await arbor.setSubagentApprovals('ask')
  await expect(page.getByTestId('subagent-approvals-ask')).toHaveAttribute('aria-pressed', 'true')
  await page.reload()
  await page.getByTestId('job-item').first().click()
  await expect(arbor.root).toBeVisible()
  await expect(arbor.subagentApprovals).toHaveAttribute('data-mode', 'ask')
  await page.locator('body').press('a')
  await expect(arbor.subagentApprovals).toHaveAttribute('data-mode', 'approve')
})

test('drags a node onto the inspector dock to see its trace', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  const child = arbor.children.first()
  const childId = await child.getAttribute('data-agent-id')
  await child.dragTo(page.getByTestId('inspector-dock'))
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${childId}"]`)
  await expect(inspector).toBeVisible()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="tool.call"]').first()).toBeVisible()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.end"]')).toHaveCount(1)
  // The header shows the label once, then the prompt under it.
  const label = (await inspector.locator('.inspector__label').textContent()) ?? ''
  expect(label.length).toBeGreaterThan(0)
  const task = (await inspector.getByTestId('inspector-task').textContent()) ?? ''
  expect(task.length).toBeGreaterThan(label.length)
  expect(task.startsWith(`${label}\n`)).toBe(false)
  // Beside the open inspector the four children wrap into rows rather than shrink: each is drawn
  // at a readable size, and with all of the tree in view there is no minimap over a node.
  await expect
    .poll(async () => Math.min(...(await arbor.children.evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().width)))))
    .toBeGreaterThanOrEqual(0.75 * 256 - 1)
  await expect(page.locator('.react-flow__minimap')).toHaveCount(0)
  await arbor.screenshot('inspector')
})

test('exports a JSONL whose lines parse and whose tree matches the graph', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  const drawn = await arbor.graphTree()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()])
  const file = await download.path()
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines[0]).toMatchObject({ type: 'trace.header', format: 'arbor-trace', version: 1, job: { status: 'completed' } })
  const exported: Record<string, { parent: string | null; depth: number; status: string; profile: string }> = {}
  for (const event of lines.slice(1)) {
    if (event.type === 'agent.start') {
      exported[event.agent_id] = { parent: event.parent_id, depth: event.depth, status: 'running', profile: event.data.profile }
    }
    if (event.type === 'agent.end') exported[event.agent_id]!.status = event.data.status
  }
  expect(exported).toEqual(drawn)
  expect(Object.values(exported).filter((agent) => agent.depth === 1)).toHaveLength(4)
  const seqs = lines.slice(1).map((event) => event.seq)
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
})

test("starting another job closes the last job's inspectors, and the toolbar stays in view", async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  // Three inspectors of the first job: the dock at its widest.
  for (const [index, node] of [arbor.root, arbor.children.nth(0), arbor.children.nth(1)].entries()) {
    await arbor.dragToDock(node)
    await expect(page.getByTestId('inspector')).toHaveCount(index + 1)
  }
  const firstJob = await page.locator('[data-testid="job-item"]').first().getAttribute('data-job-id')

  await arbor.runDemo()
  await expect(page.locator('[data-testid="job-item"]')).toHaveCount(2)
  await expect(page.locator('[data-testid="job-item"]').first()).not.toHaveAttribute('data-job-id', firstJob ?? '')
  await expect(page.getByTestId('inspector')).toHaveCount(0)
  // Every control of the toolbar is inside the centre pane, none under the dock.
  const centre = await page.locator('main.centre').boundingBox()
  const exportButton = await page.getByTestId('export-menu').boundingBox()
  expect(centre && exportButton && exportButton.x + exportButton.width <= centre.x + centre.width).toBe(true)
  await arbor.screenshot('second-job-inspectors-closed')
})

test('a whole session leaves the console clean: no error, no policy violation, no uncaught exception', async ({ page }) => {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  await arbor.children.first().dragTo(page.getByTestId('inspector-dock'))
  await expect(page.getByTestId('inspector')).toHaveCount(1)
  await page.getByTestId('view-timeline').click()
  await expect(page.getByTestId('timeline-lane').first()).toBeVisible()
  await page.getByTestId('open-settings').click()
  await expect(page.getByTestId('settings')).toBeVisible()
  await page.getByTestId('settings-close').click()
  await page.reload()
  await expect(arbor.root).toBeVisible()
  expect(problems).toEqual([])
})

test('Kill job asks first, as a node Kill and the k shortcut do: Cancel keeps the job, Kill job ends it', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.runDemo()
  await page.getByTestId('kill-job').click()
  const confirm = page.getByTestId('kill-confirm')
  await expect(confirm).toContainText('End the whole job: kill root')
  await arbor.screenshot('kill-job-confirm')
  await page.getByTestId('kill-confirm-no').click()
  await expect(confirm).toHaveCount(0)
  await expect(arbor.root).toHaveAttribute('data-status', 'running')

  await page.getByTestId('kill-job').click()
  await expect(page.getByTestId('kill-confirm-yes')).toHaveText('Kill job')
  await page.getByTestId('kill-confirm-yes').click()
  await expect(arbor.root).toHaveAttribute('data-status', 'killed')
  await expect(page.getByTestId('kill-job')).toHaveCount(0)
  // The job the user killed is called killed, in the toolbar and in the job list, not "cancelled".
  await expect(page.getByTestId('job-status')).toHaveText('killed')
  await expect(page.locator('.job-item.selected .job-badge')).toHaveText('killed')
  await arbor.screenshot('killed-job')
})
