import { expect, test } from './support/fixtures'
import { openaiConversations, openaiErrors } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// A model server that answers 429 (issue 21 §2): the root waits rather than fails. Its node says
// "waiting: rate limited" with the provider's message and a countdown to the next try; Retry now
// (its button, and its menu's entry) makes the call at once, and the job completes.
const rootMarker = 'E2E-RATE-LIMIT'
test('a rate-limited agent waits with a countdown; Retry now makes its call at once', async ({ page, fakeModel, arborServer }) => {
  const through = { open: false }
  const routes = openaiConversations([
    {
      match: rootMarker,
      turns: [{ delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'the shop sells carts' } }] }],
    },
  ])
  // The SDK-level retries are answered at once; the fourth attempt asks for 45 s.
  const model = await fakeModel({
    route: (request) => (through.open ? routes(request) : openaiErrors.rateLimit(request.seq < 4 ? { ms: 20 } : 45)),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const form = await arbor.fillAgentJob({ task: `${rootMarker}: what does the shop sell?`, baseUrl: `${model.url}/v1` })
  // The form's "Wait through rate limits" (15 minutes unless changed).
  const waitField = form.getByTestId('job-field-rate_limit_wait_minutes')
  await expect(waitField).toHaveValue('15')
  await waitField.fill('10')
  await waitField.scrollIntoViewIfNeeded()
  await arbor.screenshot('new-job-rate-limit-wait')
  await arbor.startFilledJob(form)

  const waiting = arbor.nodesWithStatus('rate_limited')
  await expect(waiting).toBeVisible({ timeout: 30_000 })
  const line = waiting.getByTestId('node-wait')
  await expect(line).toHaveAttribute('data-reason', 'rate_limit')
  await expect(line).toContainText('HTTP 429 rate_limit_exceeded')
  await expect(line).toContainText(/ · \d+ s/)
  const secondsLeft = async () => Number((await line.textContent())?.match(/ · (\d+) s/)?.[1])
  const first = await secondsLeft()
  expect(first).toBeGreaterThan(30)
  expect(first).toBeLessThanOrEqual(45)
  // The countdown counts down.
  await expect.poll(secondsLeft, { timeout: 5_000 }).toBeLessThan(first)
  await arbor.graphSettled(waiting)
  await arbor.screenshot('rate-limited-node')

  // Its menu offers Retry now first after Inspect.
  await waiting.click({ button: 'right' })
  const menu = page.getByTestId('node-menu')
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Retry now', 'Steer…', 'Set branch budget…', 'Wrap up', 'Kill'])
  await arbor.screenshot('rate-limited-node-menu')
  await page.keyboard.press('Escape')
  await expect(menu).toBeHidden()

  // Retry now: the call goes at once, long before the 45 s are up.
  through.open = true
  await waiting.getByTestId('node-retry-now').click()
  await arbor.waitForJobEnd('completed')
  await expect(arbor.root).toHaveAttribute('data-status', 'completed')
  expect(model.requests).toHaveLength(5)
})

test('Settings ▸ Providers sets the cap on concurrent model calls', async ({ page, arborServer }) => {
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.keyboard.press(',')
  const card = page.getByTestId('model-calls')
  await expect(card.getByTestId('model-calls-input')).toHaveValue('8')
  await card.getByTestId('model-calls-input').fill('0')
  await card.getByTestId('model-calls-save').click()
  await expect(card.getByRole('alert')).toContainText('at least 1')
  await card.getByTestId('model-calls-input').fill('3')
  await card.getByTestId('model-calls-save').click()
  await expect(card).toContainText('Saved')
  await card.scrollIntoViewIfNeeded()
  await arbor.screenshot('settings-model-calls')
  // Kept: the page opened again reads it back.
  await page.reload()
  await expect(page.getByTestId('job-list')).toBeVisible()
  await page.keyboard.press(',')
  await expect(page.getByTestId('model-calls-input')).toHaveValue('3')
})
