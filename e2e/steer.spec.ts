import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// Talking to a running agent from its inspector: the message waits for the agent's next step
// (after its command of 3 seconds or more), reaches its next model request marked as the user's, and shows
// in its trace with when it was sent and delivered.
const rootMarker = 'E2E-STEER'
const steer = 'Look at cart.ts before anything else.'
test('a message to a running child from its inspector arrives at its next step, and shows in its trace', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'WORKER',
        turns: [
          // The command runs until the test has seen the message wait (it writes `go`), at least 3 s.
          {
            delay_ms: 200,
            text: 'Looking around first.',
            tool_calls: [{ name: 'bash', arguments: { command: 'sleep 3; until [ -f go ]; do sleep 0.1; done' } }],
          },
          { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'read cart.ts first' } }] },
        ],
      },
      {
        match: rootMarker,
        turns: [
          {
            delay_ms: 200,
            tool_calls: [
              { name: 'task', arguments: { description: 'WORKER', prompt: 'WORKER: survey the shop.', subagent_type: 'general' } },
            ],
          },
          { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'surveyed' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.startFilledJob(await arbor.fillAgentJob({ task: `${rootMarker}: survey the shop.`, baseUrl: `${model.url}/v1` }))

  // The child runs its command: select it, press M, type, send.
  const worker = page.locator('[data-testid="agent-node"][data-depth="1"]')
  await expect(worker).toContainText('bash', { timeout: 30_000 })
  await worker.click()
  await page.locator('body').press('m')
  const workerId = (await worker.getAttribute('data-agent-id')) ?? ''
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${workerId}"]`)
  await expect(inspector.getByTestId('steer-input')).toBeFocused()
  await page.keyboard.type(steer)
  await inspector.getByTestId('steer-send').click()
  await expect(inspector.getByTestId('steer-pending')).toContainText('waiting for the agent’s next step')
  await arbor.screenshot('steer-waiting')
  writeFileSync(path.join(server.project, 'go'), '')

  // Delivered after the command: the trace shows it as yours, with both times.
  const delivered = inspector.locator('[data-testid="inspector-event"][data-type="message"]', { hasText: steer })
  await expect(delivered).toBeVisible({ timeout: 20_000 })
  await expect(delivered).toContainText(/sent .* · delivered /)
  await arbor.screenshot('steer-delivered')
  await arbor.waitForJobEnd('completed')
  type Body = { messages?: Array<{ role: string; content: string }> }
  // Each agent's conversation opens with its own task: the worker's first user message is its prompt.
  const opensWith = (text: string) => (request: { body: unknown }) => ((request.body as Body).messages?.[1]?.content ?? '').includes(text)
  const workerRequests = model.requests.filter(opensWith('WORKER: survey'))
  const last = (workerRequests.at(-1)?.body as Body).messages?.at(-1)
  expect(last).toMatchObject({ role: 'user', content: expect.stringContaining(steer) })
  expect(last?.content).toContain('A message from the user')
  // The root never got it.
  const rootRequests = model.requests.filter(opensWith(`${rootMarker}: survey`))
  expect(rootRequests.length).toBeGreaterThan(0)
  expect(rootRequests.some((request) => JSON.stringify(request.body).includes(steer))).toBe(false)
  // A finished agent takes no message: the box is gone.
  await expect(inspector.getByTestId('steer-box')).toHaveCount(0)
})
