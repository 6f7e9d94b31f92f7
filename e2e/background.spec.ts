import { expect, test } from './support/fixtures'
import type { RecordedRequest } from '../src-main/core/providers/testing/fake-http'
import { openaiConversations, openaiView } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// A background child (task with background: true): its edge is dotted and labelled "bg" while
// it runs beside its parent; when it ends while the parent works, its envelope reaches the
// parent's next model request, and the parent's inspector shows that delivery as a result card.
// Where the order matters the fake model holds a reply until the test has seen what it needs.
const rootMarker = 'E2E-BACKGROUND'
function gate(): { opened: Promise<void>; open(): void } {
  let open = (): void => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

test('a background child draws a dotted "bg" edge while it runs; its envelope reaches the parent as a message the inspector shows', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const childMayFinish = gate()
  const childEnded = gate()
  const router = openaiConversations([
    {
      match: 'HELPER',
      turns: [
        { delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'HELPER-RESULT: the shop sells things' } }] },
      ],
    },
    {
      match: rootMarker,
      turns: [
        {
          delay_ms: 100,
          text: 'Starting a helper in the background.',
          tool_calls: [
            {
              name: 'task',
              arguments: { description: 'HELPER', prompt: 'HELPER: read README.md.', subagent_type: 'general', background: true },
            },
          ],
        },
        { delay_ms: 100, text: 'Reading on my own meanwhile.', tool_calls: [{ name: 'read_file', arguments: { path: 'cart.ts' } }] },
        { delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'surveyed, with the helper' } }] },
      ],
    },
  ])
  const model = await fakeModel({
    route: async (request: RecordedRequest) => {
      const view = openaiView(request)
      if (view.first_user.includes('HELPER')) await childMayFinish.opened
      // The root's second reply waits until the helper has ended: it ends while the root works.
      else if (view.turn === 1) await childEnded.opened
      return router(request)
    },
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.startFilledJob(await arbor.fillAgentJob({ task: `${rootMarker}: survey the shop.`, baseUrl: `${model.url}/v1` }))

  // The helper runs in the background: its edge is dotted, labelled "bg", and blue while it runs.
  const helper = page.locator('[data-testid="agent-node"][data-depth="1"]')
  await expect(helper).toHaveAttribute('data-status', 'running', { timeout: 30_000 })
  const helperId = (await helper.getAttribute('data-agent-id')) ?? ''
  const edge = page.locator(`[data-testid="rf__edge-edge-${helperId}"]`)
  await expect(edge.locator('path.edge-background')).toHaveClass(/edge-active/)
  await expect(edge.locator('.react-flow__edge-text')).toHaveText('bg')
  // A string: the e2e tsconfig has no DOM types.
  const dashes = await page.evaluate<string>(
    `getComputedStyle(document.querySelector('[data-testid="rf__edge-edge-${helperId}"] path.edge-background')).strokeDasharray`,
  )
  expect(dashes).toMatch(/^1(px)?,? 6(px)?$/)
  await arbor.graphSettled(helper)
  await arbor.screenshot('background-running')

  // It ends while the root waits for its model: the edge keeps its dots, in the done colour.
  childMayFinish.open()
  await expect(helper).toHaveAttribute('data-status', 'completed', { timeout: 20_000 })
  await expect(edge.locator('path.edge-background')).toHaveClass(/edge-done/)
  childEnded.open()
  await arbor.waitForJobEnd('completed')

  // The root's next request held the helper's envelope once, as the last message.
  type Body = { messages?: Array<{ role: string; content: string }> }
  const rootRequests = model.requests.filter((request) => openaiView(request).first_user.includes(rootMarker))
  const third = (rootRequests[2]?.body as Body).messages ?? []
  expect(third.filter((message) => message.content.includes('HELPER-RESULT'))).toHaveLength(1)
  expect(third.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('subagents of yours ended while you worked') })

  // The root's inspector shows the delivery as Arbor's message with the helper's result card.
  const root = page.locator('[data-testid="agent-node"][data-depth="0"]')
  await arbor.dragToDock(root)
  const rootId = (await root.getAttribute('data-agent-id')) ?? ''
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${rootId}"]`)
  const delivery = inspector.locator('[data-testid="inspector-event"][data-type="message"]', {
    hasText: 'results of 1 background subagent',
  })
  await expect(delivery).toBeVisible()
  await expect(delivery.getByTestId('background-results')).toContainText('HELPER-RESULT: the shop sells things')
  await delivery.scrollIntoViewIfNeeded()
  await arbor.screenshot('background-delivered')
})
