import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// A follow-up from the box under the answer: the root of a completed job goes on with its whole
// conversation (the earlier request's messages, byte for byte, then the new text), in the same
// job and tree, and answers again.
const rootMarker = 'E2E-FOLLOW-UP'
const followUp = 'Now list what it does not sell.'
test('following up a completed job from the UI continues the root with its history; the tree and totals go on', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const complete = (result: string, delay_ms = 200) => ({ delay_ms, tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
  const model = await fakeModel({
    route: openaiConversations([
      { match: 'LISTER', turns: [complete('It sells carts and totals.'), complete('LISTER AGAIN: and gift wrap.')] },
      {
        match: rootMarker,
        turns: [
          {
            delay_ms: 200,
            tool_calls: [
              { name: 'task', arguments: { description: 'LISTER', prompt: 'LISTER: list the shop.', subagent_type: 'general' } },
            ],
          },
          complete('FIRST ANSWER: carts and totals.'),
          complete('SECOND ANSWER: no gift cards.', 1500),
        ],
      },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.startFilledJob(await arbor.fillAgentJob({ task: `${rootMarker}: what does the shop sell?`, baseUrl: `${model.url}/v1` }))
  await arbor.waitForJobEnd('completed')
  const answer = page.getByTestId('job-answer-text')
  await expect(answer).toContainText('FIRST ANSWER')
  const nodes = page.locator('[data-testid="agent-node"]')
  await expect(nodes).toHaveCount(2)
  const rootId = await page.locator('[data-testid="agent-node"][data-depth="0"]').getAttribute('data-agent-id')

  type Body = { messages: Array<{ role: string; content: string }> }
  const rootRequests = () => model.requests.filter((request) => ((request.body as Body).messages[1]?.content ?? '').includes(rootMarker))
  expect(rootRequests()).toHaveLength(2)
  const earlier = (rootRequests()[1]!.body as Body).messages

  await page.getByTestId('follow-up-input').fill(followUp)
  await arbor.screenshot('follow-up-typed')
  await page.getByTestId('follow-up-send').click()
  // It runs again: the same job, the same root node, the box waits.
  await expect(page.getByTestId('follow-up-send')).toHaveText('Running…')
  await expect(page.locator(`[data-testid="agent-node"][data-agent-id="${rootId}"]`)).toHaveAttribute('data-status', 'running')
  await arbor.screenshot('follow-up-running')
  await arbor.waitForJobEnd('completed')
  await expect(answer).toContainText('SECOND ANSWER')
  await expect(nodes).toHaveCount(2)
  await expect(page.locator('[data-testid="job-item"]')).toHaveCount(1)
  await arbor.screenshot('follow-up-answered')

  const next = (rootRequests()[2]!.body as Body).messages
  expect(JSON.stringify(next.slice(0, earlier.length))).toBe(JSON.stringify(earlier))
  expect(next.at(-1)).toEqual({ role: 'user', content: followUp })
  expect(next).toHaveLength(earlier.length + 3)

  // A finished child, from its node's menu: Follow up… opens its inspector with the box focused.
  const lister = page.locator('[data-testid="agent-node"][data-depth="1"]')
  const listerId = (await lister.getAttribute('data-agent-id')) ?? ''
  await lister.click({ button: 'right' })
  const menu = page.getByTestId('node-menu')
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Follow up…'])
  await arbor.screenshot('follow-up-child-menu')
  await menu.getByRole('menuitem', { name: 'Follow up…' }).click()
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${listerId}"]`)
  await expect(inspector.getByTestId('agent-follow-up-input')).toBeFocused()
  await page.keyboard.type('LISTER-MORE: anything else?')
  await inspector.getByTestId('agent-follow-up-send').click()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.resume"]')).toBeVisible({ timeout: 20_000 })
  await expect(inspector.getByText('LISTER AGAIN: and gift wrap.').first()).toBeVisible({ timeout: 20_000 })
  await arbor.waitForJobEnd('completed')
  await arbor.screenshot('follow-up-child-answered')
  // Only the child ran: the root's answer stands, and its requests did not grow.
  await expect(answer).toContainText('SECOND ANSWER')
  expect(rootRequests()).toHaveLength(3)
})
