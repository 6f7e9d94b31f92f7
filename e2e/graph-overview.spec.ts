import { expect, test, type Worker } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { traceHeaderLine } from '../src-main/core/store/export'
import { newEvent, type EventData, type EventType } from '../src-main/core/trace/events'
import { defaultSettings, type Job } from '../src-main/core/trace/model'
import { emptyUsage } from '../src-main/core/trace/usage'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'

/**
 * A tree of 2,000 agents (breadth first, 24 children a parent, so no fan-out is grouped), opened
 * from a trace file in the real UI served by `arbor serve` under its Content-Security-Policy: the
 * layout runs in the layout worker (its script loads and answers), the fitted view draws every
 * agent on the overview canvas, and zooming in hands the agents in view to xyflow as cards.
 */
const agents = 2000
const perParent = 24
let server: ArborServer | undefined

test.afterEach(async () => {
  await server?.stop()
  server = undefined
})

function bigTreeTrace(): string {
  const jobId = 'job-big-tree'
  const task = 'Map the whole monorepo'
  const settings = defaultSettings({ model: 'scripted-main', max_depth: 3, max_concurrent_children: 50 })
  let tick = 0
  const ts = () => new Date(Date.UTC(2026, 0, 1, 10, 0, 0) + tick++).toISOString()
  const events: string[] = []
  const add = <T extends EventType>(type: T, agent: string | null, parent: string | null, depth: number | null, data: EventData<T>) => {
    events.push(
      JSON.stringify({
        seq: events.length + 1,
        ...newEvent(type, { ts: ts(), job_id: jobId, agent_id: agent, parent_id: parent, depth }, data),
      }),
    )
  }
  const start = (label: string) => ({
    profile: 'general',
    model: 'scripted-main',
    label,
    task: `Map ${label}`,
    tools: ['read_file'],
    max_steps: 10,
    context_token_budget: null,
    total_token_budget: null,
  })
  const end = {
    status: 'completed' as const,
    terminal_reason: 'completed' as const,
    result: null,
    summary: 'mapped',
    usage: emptyUsage(),
    cost_usd: null,
    steps: 1,
    tool_usage: {},
    duration_ms: 1000,
  }
  add('job.start', null, null, null, { task, settings })
  const depths = [0]
  add('agent.start', 'a0', null, 0, start('root'))
  for (let index = 1; index < agents; index++) {
    const parent = Math.floor((index - 1) / perParent)
    depths[index] = depths[parent]! + 1
    add('agent.start', `a${index}`, `a${parent}`, depths[index]!, start(`part ${index}`))
  }
  for (let index = agents - 1; index >= 0; index--)
    add('agent.end', `a${index}`, index === 0 ? null : `a${Math.floor((index - 1) / perParent)}`, depths[index]!, end)
  add('job.end', null, null, null, { status: 'completed', usage: emptyUsage(), cost_usd: null })
  const job: Job = {
    id: jobId,
    project: '/projects/big-tree',
    task,
    settings,
    status: 'completed',
    created_at: '2026-01-01T09:59:59.000Z',
    ended_at: null,
    auto_approve: false,
    spawn_paused: false,
    usage: emptyUsage(),
    cost_usd: null,
  }
  return traceHeaderLine(job, new Date('2026-01-01T11:00:00.000Z')) + events.join('\n') + '\n'
}

test('a 2,000-agent tree is laid out in the layout worker, drawn whole on the overview, and zooms in to cards', async ({ page }) => {
  test.setTimeout(120_000)
  server = await startArborServer({ openProject: false })
  const policyErrors: string[] = []
  page.on('console', (message) => {
    // What the policy would say of a blocked worker (serve's policy has another warning, about IPv6 sockets).
    if (/worker|script-src/i.test(message.text()) && /Content Security Policy|Refused/i.test(message.text()))
      policyErrors.push(message.text())
  })
  const workers: Worker[] = []
  page.on('worker', (worker) => workers.push(worker))
  await page.goto(server.url)
  await expect(page.getByTestId('start-screen')).toBeVisible()
  const file = path.join(path.dirname(server.dbFile), 'big-tree.jsonl')
  writeFileSync(file, bigTreeTrace())
  await page.getByTestId('trace-file-input').setInputFiles(file)
  await expect(page.getByTestId('job-imported')).toBeVisible()

  const overview = page.getByTestId('graph-overview')
  await expect(overview).toHaveAttribute('data-drawn', String(agents), { timeout: 30_000 })
  await expect(overview).toHaveAttribute('data-job-id', 'job-big-tree')
  expect(workers.map((worker) => new URL(worker.url()).pathname)).toEqual([expect.stringMatching(/\/assets\/layout\.worker-[\w-]+\.js$/)])
  expect(policyErrors).toEqual([])
  const arbor = new ArborPage(page)
  // Zoomed out this far a card is unreadable: xyflow holds no nodes at all.
  await expect(arbor.nodes).toHaveCount(0)
  await arbor.screenshot('graph-overview-2000')

  // A click on the overview opens the agent under it: the root, centred on x = 0 at the layout's top.
  const style = (await page.locator('.react-flow__viewport').getAttribute('style')) ?? ''
  const [x = NaN, y = NaN, zoom = NaN] = (/translate\(([-\d.]+)px, ?([-\d.]+)px\) scale\(([\d.]+)\)/.exec(style) ?? []).slice(1).map(Number)
  const pane = (await page.locator('.react-flow').boundingBox())!
  await page.mouse.click(pane.x + x, pane.y + y + 69 * zoom)
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-agent-id', 'a0')

  // Zoom in (xyflow's own control) until the agents in view are cards again.
  const zoomIn = page.locator('.react-flow__controls-zoomin')
  for (let press = 0; press < 30 && (await overview.count()) > 0; press++) await zoomIn.click()
  await expect(overview).toHaveCount(0)
  await expect(arbor.nodes.first()).toBeVisible()
  const shown = await arbor.nodes.count()
  expect(shown).toBeGreaterThan(0)
  expect(shown).toBeLessThan(agents)
  const ids = await arbor.nodes.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-agent-id') ?? ''))
  expect(ids.every((id) => /^a\d+$/.test(id))).toBe(true)
  await arbor.screenshot('graph-overview-zoomed-in')
})
