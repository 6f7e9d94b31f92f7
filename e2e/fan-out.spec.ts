import { expect, test, type Locator, type Page } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { traceHeaderLine } from '../src-main/core/store/export'
import { newEvent, type EventData, type EventType } from '../src-main/core/trace/events'
import { defaultSettings, type Job } from '../src-main/core/trace/model'
import { emptyUsage } from '../src-main/core/trace/usage'
import { fanOutColumns } from '../src-renderer/src/graph/fan-out'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'

/**
 * A parent with 500 children, opened from a real trace file in the real UI served by `arbor serve`:
 * the children are one group node with their count and status totals, the view fits the whole
 * tree; expanding shows every child in rows no wider than the limit, still fitted; grouping again
 * returns to the group.
 */
const children = 500
const failedEvery = 50
let server: ArborServer | undefined

test.afterEach(async () => {
  await server?.stop()
  server = undefined
})

/** Every 50th child (from the 8th) failed, every 50th (from the 14th) was killed, the rest completed. */
const childStatus = (index: number) => (index % failedEvery === 7 ? 'failed' : index % failedEvery === 13 ? 'killed' : 'completed')

function fanOutTrace(): string {
  const jobId = 'job-fan-out'
  const task = 'Review every module'
  const settings = defaultSettings({ model: 'scripted-main', max_depth: 1, max_concurrent_children: 50 })
  let second = 0
  const ts = () => new Date(Date.UTC(2026, 0, 1, 10, 0, 0, second++)).toISOString()
  const events: string[] = []
  const add = <T extends EventType>(type: T, agent: string | null, parent: string | null, data: EventData<T>) => {
    const event = newEvent(
      type,
      { ts: ts(), job_id: jobId, agent_id: agent, parent_id: parent, depth: agent === null ? null : parent ? 1 : 0 },
      data,
    )
    events.push(JSON.stringify({ seq: events.length + 1, ...event }))
  }
  const start = (label: string, taskText: string) => ({
    profile: 'general',
    model: 'scripted-main',
    label,
    task: taskText,
    tools: ['read_file'],
    max_steps: 10,
    context_token_budget: null,
    total_token_budget: null,
  })
  const end = (status: 'completed' | 'failed' | 'killed') => ({
    status,
    terminal_reason: status === 'failed' ? ('provider_error' as const) : status,
    result: null,
    summary: status,
    usage: emptyUsage(),
    cost_usd: null,
    steps: 1,
    tool_usage: {},
    duration_ms: 1000,
  })
  add('job.start', null, null, { task, settings })
  add('agent.start', 'root', null, start('root', task))
  for (let index = 0; index < children; index++)
    add('agent.start', `child-${index}`, 'root', start(`module ${index}`, `Review module ${index}`))
  for (let index = 0; index < children; index++) add('agent.end', `child-${index}`, 'root', end(childStatus(index)))
  add('agent.end', 'root', null, end('completed'))
  add('job.end', null, null, { status: 'completed', usage: emptyUsage(), cost_usd: null })
  const job: Job = {
    id: jobId,
    project: '/projects/fan-out',
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

/** The box of every drawn node (agents and groups), and of the graph pane. */
async function boxes(page: Page): Promise<{ pane: Box; nodes: Box[] }> {
  const pane = await page.getByTestId('graph').boundingBox()
  const nodes = await page.locator('.react-flow__node').evaluateAll((elements) =>
    elements.map((element) => {
      const rect = element.getBoundingClientRect()
      return { x: rect.x, y: rect.y, width: rect.width, height: rect.height }
    }),
  )
  return { pane: pane!, nodes }
}
type Box = { x: number; y: number; width: number; height: number }

async function expectAllInView(page: Page, count: number): Promise<void> {
  // The fit animates for 200 ms: wait until every box is inside the pane.
  await expect
    .poll(async () => {
      const { pane, nodes } = await boxes(page)
      const inside = nodes.filter(
        (node) =>
          node.x >= pane.x - 0.5 &&
          node.y >= pane.y - 0.5 &&
          node.x + node.width <= pane.x + pane.width + 0.5 &&
          node.y + node.height <= pane.y + pane.height + 0.5,
      )
      return `${inside.length} of ${nodes.length}`
    })
    .toBe(`${count} of ${count}`)
}

/** How many nodes each row of a locator's elements holds (rows by their top edge). */
async function rowWidths(nodes: Locator): Promise<number[]> {
  const tops = await nodes.evaluateAll((elements) => elements.map((element) => Math.round(element.getBoundingClientRect().y)))
  const rows = new Map<number, number>()
  for (const top of tops) rows.set(top, (rows.get(top) ?? 0) + 1)
  return [...rows.values()]
}

test('a parent with 500 children is one group with totals, expands to all 500 in wrapped rows, and groups again', async ({ page }) => {
  server = await startArborServer({ openProject: false })
  await page.goto(server.url)
  await expect(page.getByTestId('start-screen')).toBeVisible()
  const file = path.join(path.dirname(server.dbFile), 'fan-out.jsonl')
  writeFileSync(file, fanOutTrace())
  await page.getByTestId('trace-file-input').setInputFiles(file)
  await expect(page.getByTestId('job-imported')).toBeVisible()

  const arbor = new ArborPage(page)
  const group = page.getByTestId('fan-out-node')
  await expect(group).toHaveCount(1)
  await expect(group).toHaveAttribute('data-count', String(children))
  await expect(group.getByTestId('fan-out-count')).toHaveText(String(children))
  const totals = Object.fromEntries(
    await group
      .getByTestId('fan-out-total')
      .evaluateAll((items) => items.map((item) => [item.getAttribute('data-status'), item.textContent])),
  )
  expect(totals).toEqual({ failed: '10 failed', completed: '480 completed', killed: '10 killed' })
  // The failures come first: what needs a look is not last in the list.
  await expect(group.getByTestId('fan-out-total').first()).toHaveAttribute('data-status', 'failed')
  await expect(arbor.nodes).toHaveCount(1)
  await expectAllInView(page, 2)
  await arbor.screenshot('fan-out-grouped')

  await group.click()
  await expect(group).toHaveCount(0)
  await expect(arbor.children).toHaveCount(children)
  const ids = await arbor.children.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-agent-id')))
  expect(new Set(ids)).toEqual(new Set(Array.from({ length: children }, (_, index) => `child-${index}`)))
  const widths = await rowWidths(arbor.children)
  expect(Math.max(...widths)).toBe(fanOutColumns)
  expect(widths).toHaveLength(Math.ceil(children / fanOutColumns))
  await expect(arbor.nodesWithStatus('failed')).toHaveCount(10)
  await expectAllInView(page, children + 1)
  await arbor.screenshot('fan-out-expanded')

  await page.getByTestId('fan-out-regroup').click()
  await expect(group).toHaveCount(1)
  await expect(arbor.nodes).toHaveCount(1)
  await expect(page.getByTestId('fan-out-regroup')).toHaveCount(0)
  await expectAllInView(page, 2)
})
