import { expect, test, type Locator, type Page } from '@playwright/test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { defaultNewJob, type NewJob } from '../src-main/core/api/job-form'
import type { TraceEvent } from '../src-main/core/trace/events'
import type { FakeServer } from '../src-main/core/providers/testing/fake-http'
import type { FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'
import { apiClient } from './support/api-client'
import { openInArbor, startArborServer, type ArborServer } from './support/arbor-server'
import { longTrace } from './support/long-trace'
import { rootMarker, startFakeModel } from './support/fake-model'

// The timeline of a real job: `arbor serve` runs the e2e model's survey (the root delegates two
// explore children, one at a time so the second is queued, then waits for approval of a risky
// command), and Chromium shows it as a Gantt and a usage plot while it runs and once it ended,
// then plays it back on the graph.
let server: ArborServer | undefined
let model: FakeServer<FakeOpenAIResponse> | undefined
let opened: Awaited<ReturnType<typeof openInArbor>> | undefined

test.afterEach(async ({ page }, testInfo) => {
  // Playwright's own failure screenshot is taken after this hook, when the server is gone and
  // the page says "reconnecting…" whatever happened: keep the page as the test left it, and
  // what `arbor serve` said, before stopping it.
  if (server && testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach('page before the server stopped', { body: await page.screenshot(), contentType: 'image/png' })
    await testInfo.attach('arbor serve output', { body: server.output(), contentType: 'text/plain' })
  }
  await server?.stop()
  await model?.close()
  await opened?.stop()
  server = undefined
  model = undefined
  opened = undefined
})

async function startSurvey(arbor: ArborServer, baseUrl: string): Promise<string> {
  const client = await apiClient(arbor)
  const job: NewJob = {
    ...defaultNewJob(),
    task: `${rootMarker}: read the key files, then remove the stale notes file.`,
    provider: 'openai',
    model: 'gpt-4o-mini',
    base_url: baseUrl,
    max_depth: 1,
    max_concurrent_children: 1,
  }
  await client.ask('setProviderConfig', { provider: 'openai', base_url: baseUrl, model: job.model, light_model: null })
  const { job_id: jobId } = await client.ask<{ job_id: string }>('startJob', { kind: 'agent', job })
  client.close()
  return jobId
}

const number = async (locator: Locator, attribute: string): Promise<number> => Number(await locator.getAttribute(attribute))

/** Where on the page a moment of a lane is drawn, from the chart's own geometry. */
async function pointOf(page: Page, laneIndex: number, ms: number): Promise<{ x: number; y: number }> {
  const timeline = page.getByTestId('timeline')
  const chart = await page.getByTestId('timeline-chart').boundingBox()
  if (!chart) throw new Error('the timeline chart is not on the page')
  const [startMs, min, max, left, width, row] = await Promise.all(
    ['data-start-ms', 'data-x-min', 'data-x-max', 'data-plot-left', 'data-plot-width', 'data-row-height'].map((name) =>
      number(timeline, name),
    ),
  )
  const seconds = (ms - startMs!) / 1000
  return { x: chart.x + left! + ((seconds - min!) / (max! - min!)) * width!, y: chart.y + laneIndex * row! + row! / 2 }
}

test('the timeline grows with a live job, opens a bar in the inspector, zooms, plots usage and replays the tree', async ({ page }) => {
  test.setTimeout(150_000)
  model = await startFakeModel()
  server = await startArborServer({ env: { OPENAI_API_KEY: 'sk-e2e-timeline-0000' } })
  const jobId = await startSurvey(server, `${model.url}/v1`)
  const arbor = new ArborPage(page)
  await page.goto(`${server.url}&job=${encodeURIComponent(jobId)}`)
  await expect(arbor.root).toBeVisible()

  // Live: the lanes and bars grow while the job runs, from the event stream.
  await page.getByTestId('view-timeline').click()
  const timeline = page.getByTestId('timeline')
  await expect(timeline).toBeVisible()
  const lanes = page.getByTestId('timeline-lane')
  await expect(lanes).toHaveCount(3, { timeout: 30_000 })
  await expect.poll(() => number(timeline, 'data-queued')).toBe(1)
  // The root asks to run its command: an approval wait opens on its lane, and stays open until
  // decided. The job waits there, however far it got before the page showed it (on a loaded
  // machine the page may come up only then): once approved, its command and last model call
  // arrive as live events and the bars grow.
  await expect(page.getByTestId('approval')).toBeVisible({ timeout: 30_000 })
  await expect.poll(() => number(timeline, 'data-approval')).toBe(1)
  const barsBeforeApproval = await number(timeline, 'data-bars')
  await page.waitForTimeout(1500)
  await arbor.screenshot('timeline-live')
  await page.getByTestId('approval-approve').click()
  await expect.poll(() => number(timeline, 'data-bars'), { timeout: 30_000 }).toBeGreaterThan(barsBeforeApproval)
  await arbor.waitForJobEnd('completed')

  // One lane per agent, in the graph's depth-first order: the root, then its children in spawn order.
  const client = await apiClient(server)
  const tree = await client.ask<{ agents: Array<{ id: string; parent_id: string | null; created_at: string }> }>('getTree', {
    job_id: jobId,
  })
  const root = tree.agents.find((agent) => agent.parent_id === null)!
  const laneIds = await lanes.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-agent-id')))
  expect(laneIds).toEqual([root.id, ...tree.agents.filter((agent) => agent.parent_id === root.id).map((agent) => agent.id)])
  for (const id of laneIds)
    expect(await number(page.locator(`[data-testid="timeline-lane"][data-agent-id="${id}"]`), 'data-bars')).toBeGreaterThan(0)
  await page.mouse.move(0, 0)
  await arbor.screenshot('timeline-finished')

  // Click the root's second model call: its inspector opens scrolled to that very event, marked.
  const { events } = await client.ask<{ events: TraceEvent[] }>('getEvents', { agent_id: root.id })
  client.close()
  const call = events.filter((event) => event.type === 'llm.call')[1]!
  const duration = (call.data as { duration_ms: number }).duration_ms
  const point = await pointOf(page, 0, Date.parse(call.ts) - duration / 2)
  await page.mouse.move(point.x, point.y)
  await expect(page.getByTestId('timeline-tooltip')).toContainText('model call')
  await page.mouse.click(point.x, point.y)
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${root.id}"]`)
  const marked = inspector.locator('[data-testid="inspector-event"][data-highlighted="true"]')
  await expect(marked).toHaveCount(1)
  await expect(marked).toHaveAttribute('data-type', 'llm.call')
  await expect(marked.locator('.event-row__time')).toHaveAttribute('title', new RegExp(`^seq ${call.seq} `))
  await expect(marked).toBeInViewport()
  await arbor.screenshot('timeline-inspector')
  await expect(page.getByTestId('inspector')).toHaveCount(1)

  // Zoom: the wheel narrows the visible range about the pointer; reset shows the whole job again.
  const whole = (await number(timeline, 'data-x-max')) - (await number(timeline, 'data-x-min'))
  const chart = (await page.getByTestId('timeline-chart').boundingBox())!
  await page.mouse.move(chart.x + chart.width / 2, chart.y + 40)
  await page.mouse.wheel(0, -600)
  await expect.poll(async () => (await number(timeline, 'data-x-max')) - (await number(timeline, 'data-x-min'))).toBeLessThan(whole * 0.7)
  // Shift-wheel pans: the span stays, the start moves.
  const zoomedMin = await number(timeline, 'data-x-min')
  await page.keyboard.down('Shift')
  await page.mouse.wheel(0, 200)
  await page.keyboard.up('Shift')
  await expect.poll(() => number(timeline, 'data-x-min')).toBeGreaterThan(zoomedMin)
  await arbor.screenshot('timeline-zoomed')
  await page.getByTestId('timeline-reset').click()
  await expect.poll(async () => (await number(timeline, 'data-x-max')) - (await number(timeline, 'data-x-min'))).toBeCloseTo(whole, 3)
  // Drag across a third of the chart: that third fills it.
  await page.mouse.move(chart.x + chart.width * 0.4, chart.y + 30)
  await page.mouse.down()
  await page.mouse.move(chart.x + chart.width * 0.55, chart.y + 30, { steps: 5 })
  await page.mouse.move(chart.x + chart.width * 0.73, chart.y + 30, { steps: 5 })
  await page.mouse.up()
  await expect.poll(async () => (await number(timeline, 'data-x-max')) - (await number(timeline, 'data-x-min'))).toBeLessThan(whole * 0.45)
  // Double-click resets. Dispatched as the double-click alone: a real one also clicks, and in the
  // zoomed view any spot may hold a bar on a slow machine (whose click opens another inspector).
  await timeline.locator('.u-over').first().dispatchEvent('dblclick')
  await expect.poll(async () => (await number(timeline, 'data-x-max')) - (await number(timeline, 'data-x-min'))).toBeCloseTo(whole, 3)
  await expect(page.getByTestId('inspector')).toHaveCount(1)

  // The usage plot under the Gantt, once asked for: a point per model call, stacked by agent or by profile.
  const plot = page.getByTestId('usage-plot')
  await expect(plot).toHaveCount(0)
  await page.getByTestId('toggle-plot').click()
  await expect(plot).toBeVisible()
  const calls = await number(plot, 'data-points')
  expect(calls).toBeGreaterThanOrEqual(6)
  await expect(plot).toHaveAttribute('data-bands', '3')
  // The README's picture of the timeline (ARBOR_DOCS_SCREENSHOT=1): the centre pane only, at a modest size.
  if (process.env.ARBOR_DOCS_SCREENSHOT === '1') {
    await inspector.getByRole('button', { name: 'Close inspector' }).click()
    await page.setViewportSize({ width: 1280, height: 640 })
    await page.mouse.move(0, 0)
    await page.waitForTimeout(500)
    await page.locator('.centre').screenshot({ path: path.resolve(import.meta.dirname, '../docs/timeline.png') })
    await page.setViewportSize({ width: 1440, height: 900 })
  }
  await plot.getByTestId('plot-stack-by').getByText('By profile').click()
  await expect(plot).toHaveAttribute('data-bands', '2')
  await expect(plot.getByTestId('plot-bands')).toContainText('explore')
  expect(await number(plot, 'data-total')).toBeGreaterThan(0)

  // Replay on the graph: early on only the root exists; at the end, the whole tree, as it was.
  await page.getByTestId('view-graph').click()
  await expect(arbor.nodes).toHaveCount(3)
  await page.getByTestId('replay-start').click()
  const bar = page.getByTestId('replay-bar')
  await expect(page.getByTestId('replay-slider')).toBeVisible()
  await page.getByTestId('replay-play').click()
  await expect(bar).toHaveAttribute('data-playing', 'false')
  await page.getByTestId('replay-slider').fill('0.5')
  await expect(arbor.nodes).toHaveCount(1)
  await expect(arbor.root).toHaveAttribute('data-status', 'running')
  await expect(arbor.root.getByTestId('node-kill')).toHaveCount(0)
  await arbor.screenshot('replay-early')
  const end = await page.getByTestId('replay-slider').getAttribute('max')
  await page.getByTestId('replay-slider').fill(end!)
  await expect(arbor.nodes).toHaveCount(3)
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(3)
  // Back in time again (from a checkpoint), then out of replay to the final tree.
  await page.getByTestId('replay-slider').fill('0.3')
  await expect(arbor.nodes).toHaveCount(1)
  await expect(page.getByTestId('inspector')).toHaveCount(1)
  await page.getByTestId('replay-exit').click()
  await expect(bar).toBeHidden()
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(3)
})

test('an imported trace has the same timeline, read-only, and replays', async ({ page, browser }) => {
  test.setTimeout(120_000)
  server = await startArborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  // The demo: the root delegates four explorations, three at a time, so the fourth waits in the queue.
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  await page.getByTestId('view-timeline').click()
  const original = page.getByTestId('timeline')
  await expect(original).toHaveAttribute('data-lanes', '5')
  const shape = await Promise.all(['data-lanes', 'data-bars', 'data-queued', 'data-approval'].map((name) => original.getAttribute(name)))
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl').click()])
  const trace = readFileSync(await download.path(), 'utf8')
  await server.stop()

  server = await startArborServer({ openProject: false })
  const viewer = await browser.newPage()
  await viewer.goto(server.url)
  const file = path.join(path.dirname(server.dbFile), 'demo.jsonl')
  writeFileSync(file, trace)
  await viewer.getByTestId('trace-file-input').setInputFiles(file)
  await expect(viewer.getByTestId('job-imported')).toBeVisible()
  await viewer.getByTestId('view-timeline').click()
  const timeline = viewer.getByTestId('timeline')
  await expect(timeline).toHaveAttribute('data-lanes', '5')
  expect(await Promise.all(['data-lanes', 'data-bars', 'data-queued', 'data-approval'].map((name) => timeline.getAttribute(name)))).toEqual(
    shape,
  )
  expect(shape[2]).toBe('1')
  await viewer.getByTestId('toggle-plot').click()
  await expect(viewer.getByTestId('usage-plot')).toHaveAttribute('data-bands', '5')
  await new ArborPage(viewer).screenshot('timeline-imported')

  await viewer.getByTestId('view-graph').click()
  await viewer.getByTestId('replay-start').click()
  await viewer.getByTestId('replay-play').click()
  await viewer.getByTestId('replay-slider').fill('0.2')
  await expect(viewer.getByTestId('agent-node')).toHaveCount(1)
  await viewer.getByTestId('replay-slider').fill((await viewer.getByTestId('replay-slider').getAttribute('max'))!)
  await expect(viewer.getByTestId('agent-node')).toHaveCount(5)
  await viewer.close()
})

test('a model with no price shows "no price" in the cost plot and the totals, never $0, with a way to add one', async ({ page }) => {
  const trace = longTrace(40, 'job_unpriced', 'agent_unpriced_root')
  expect(trace.jsonl).toContain('"cost_usd":null')
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-unpriced-')), 'trace.jsonl')
  writeFileSync(file, trace.jsonl.replaceAll('"model":"scripted"', '"model":"local-llama"'))
  opened = await openInArbor(file)
  const arbor = new ArborPage(page)
  await arbor.open(opened.url)
  await expect(page.getByTestId('job-toolbar')).toContainText('· no price')
  await expect(page.getByTestId('job-toolbar')).not.toContainText('$')

  await page.getByTestId('view-timeline').click()
  await page.getByTestId('toggle-plot').click()
  const plot = page.getByTestId('usage-plot')
  await plot.getByTestId('plot-metric').getByText('Cost').click()
  await expect(plot.getByTestId('plot-total')).toHaveText('no price')
  await expect(plot.getByTestId('plot-bands')).toContainText('no price')
  await expect(plot).not.toContainText('$')
  // No axis at $0: the chart says why there is nothing to draw.
  await expect(plot.getByTestId('plot-no-price')).toContainText('A price for local-llama')
  await expect(plot.locator('canvas')).toHaveCount(0)
  await arbor.screenshot('usage-plot-no-price')
  // Tokens are known: the chart is back.
  await plot.getByTestId('plot-metric').getByText('Tokens').click()
  await expect(plot.locator('canvas')).toHaveCount(1)
  await plot.getByTestId('plot-metric').getByText('Cost').click()
  await plot.getByTestId('plot-add-price').click()
  await expect(page.getByTestId('settings')).toBeVisible()
  await expect(page.getByTestId('price-add-model')).toHaveValue('local-llama')
})
