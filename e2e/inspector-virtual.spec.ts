import { expect, test, type Locator, type Page } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'
import { longTrace } from './support/long-trace'

// The inspector draws only the rows in view. Here a real `arbor serve` imports a trace whose root
// agent has 5,000 events; its inspector is scrolled from the top to the end a screen at a time,
// and every event must have been on screen once. Then a timeline bar half way up opens the
// inspector at that event.
let server: ArborServer | undefined

test.afterEach(async () => {
  await server?.stop()
  server = undefined
})

const eventCount = 5000
// A tall window, so a screen holds more rows and the walk to the end takes fewer steps.
test.use({ viewport: { width: 1440, height: 2400 } })

/**
 * Scrolls the list from the top to the end, a little less than a screen at a time, and returns
 * the seq of every row that was inside the visible part of the list at some step, and the most
 * rows in the DOM at once.
 */
async function scrollAndCount(list: Locator): Promise<{ seqs: number[]; mostRows: number; steps: number }> {
  return list.evaluate(async (element) => {
    // Two frames: the scroll event, the virtualizer's render and its measuring settle within them.
    // e2e/ is checked without the DOM lib: the one browser global used, typed here.
    const { requestAnimationFrame } = globalThis as unknown as { requestAnimationFrame(callback: () => void): number }
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null))))
    const seen = new Set<number>()
    let mostRows = 0
    let steps = 0
    element.scrollTop = 0
    await frame()
    for (;;) {
      const view = element.getBoundingClientRect()
      const rows = [...element.querySelectorAll('[data-testid="inspector-event"]')]
      mostRows = Math.max(mostRows, rows.length)
      for (const row of rows) {
        const box = row.getBoundingClientRect()
        if (box.bottom > view.top && box.top < view.bottom) seen.add(Number(row.getAttribute('data-seq')))
      }
      if (element.scrollTop + element.clientHeight >= element.scrollHeight - 1) break
      element.scrollTop += Math.floor(element.clientHeight * 0.8)
      steps += 1
      await frame()
    }
    return { seqs: [...seen].sort((a, b) => a - b), mostRows, steps }
  })
}

/** Where on the page a moment of a lane is drawn, from the chart's own geometry (as in timeline.spec.ts). */
async function pointOf(page: Page, laneIndex: number, ms: number): Promise<{ x: number; y: number }> {
  const timeline = page.getByTestId('timeline')
  const chart = await page.getByTestId('timeline-chart').boundingBox()
  if (!chart) throw new Error('the timeline chart is not on the page')
  const [startMs, min, max, left, width, row] = await Promise.all(
    ['data-start-ms', 'data-x-min', 'data-x-max', 'data-plot-left', 'data-plot-width', 'data-row-height'].map(async (name) =>
      Number(await timeline.getAttribute(name)),
    ),
  )
  const seconds = (ms - startMs!) / 1000
  return { x: chart.x + left! + ((seconds - min!) / (max! - min!)) * width!, y: chart.y + laneIndex * row! + row! / 2 }
}

test('the virtualized inspector shows every event of a 5,000-event agent, and opens at a timeline bar', async ({ page }) => {
  test.setTimeout(240_000)
  const trace = longTrace(eventCount)
  server = await startArborServer({ openProject: false })
  await page.goto(server.url)
  const file = path.join(path.dirname(server.dbFile), 'long.jsonl')
  writeFileSync(file, trace.jsonl)
  await page.getByTestId('trace-file-input').setInputFiles(file)
  await expect(page.getByTestId('job-imported')).toBeVisible()
  const arbor = new ArborPage(page)

  await arbor.root.click()
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${trace.agentId}"]`)
  const list = inspector.getByTestId('inspector-events')
  // Every page has arrived, and the list opened at the end of the trace, where the agent ended.
  await expect(list).toHaveAttribute('data-count', String(eventCount), { timeout: 30_000 })
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.end"]')).toBeInViewport()
  await arbor.screenshot('inspector-long-trace')

  const { seqs, mostRows, steps } = await scrollAndCount(list)
  expect(seqs).toEqual(trace.agentSeqs)
  expect(steps).toBeGreaterThan(20)
  // Virtualized: a screenful of rows and the overscan, never the whole trace.
  expect(mostRows).toBeLessThan(200)

  // A long note expands in place; its row is measured again, so the next row does not overlap it.
  const noteSeq = Number(
    await inspector
      .locator('[data-testid="inspector-event"][data-type="message"]', { hasText: 'show all' })
      .last()
      .getAttribute('data-seq'),
  )
  const note = inspector.locator(`[data-testid="inspector-event"][data-seq="${noteSeq}"]`)
  const next = inspector.locator(`[data-testid="inspector-event"][data-seq="${noteSeq + 1}"]`)
  const heightBefore = (await note.boundingBox())!.height
  await note.getByRole('button', { name: /show all/ }).click()
  await expect(note.getByRole('button', { name: 'show less' })).toBeVisible()
  await expect.poll(async () => (await note.boundingBox())!.height - heightBefore).toBeGreaterThan(40)
  await expect
    .poll(async () => {
      const [upper, lower] = [(await note.boundingBox())!, (await next.boundingBox())!]
      return lower.y - (upper.y + upper.height)
    })
    .toBeGreaterThanOrEqual(0)
  await arbor.screenshot('inspector-long-trace-expanded')

  // The slow model call, an eighth of the way in: its bar opens the inspector scrolled to that very row, marked.
  await page.getByTestId('view-timeline').click()
  await expect(page.getByTestId('timeline')).toBeVisible()
  const { seq, ts, durationMs } = trace.slowCall
  const point = await pointOf(page, 0, Date.parse(ts) - durationMs / 2)
  await page.mouse.move(point.x, point.y)
  await expect(page.getByTestId('timeline-tooltip')).toContainText('model call')
  await page.mouse.click(point.x, point.y)
  const marked = inspector.locator('[data-testid="inspector-event"][data-highlighted="true"]')
  await expect(marked).toHaveCount(1)
  await expect(marked).toHaveAttribute('data-seq', String(seq))
  await expect(marked).toHaveAttribute('data-type', 'llm.call')
  await expect(marked).toBeInViewport()
  await arbor.screenshot('inspector-long-trace-at-seq')
})
