import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/fixtures'
import { openaiView, type FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// Wrapping up a running job from its root's inspector: the root and both children show
// "wrapping up…", each is told at its next step (the children after their command), and each
// finishes only because its request says so; the envelopes say wrapped up. The children's
// command waits for a file the test writes once it has looked, so the "asked" state holds still.
const waitForRelease = 'until [ -f release.flag ]; do sleep 0.1; done'
const rootMarker = 'E2E-WRAPUP'
const workers = ['WORKER-A', 'WORKER-B']
const wrapUpText = 'Wrap up now'
test('Wrap up in the inspector winds the whole branch down: each agent reports within its steps', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const told = (body: unknown): boolean => JSON.stringify(body).includes(wrapUpText)
  const model = await fakeModel({
    route: (request): FakeOpenAIResponse => {
      const view = openaiView(request)
      const worker = workers.find((name) => view.first_user.includes(name))
      if (worker) {
        if (told(request.body)) {
          return { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: `${worker}: what I found so far` } }] }
        }
        // Until told, it keeps working.
        return { delay_ms: 200, text: `${worker} keeps going.`, tool_calls: [{ name: 'bash', arguments: { command: waitForRelease } }] }
      }
      if (view.turn === 0) {
        return {
          delay_ms: 200,
          tool_calls: workers.map((description) => ({
            name: 'task',
            arguments: { description, prompt: `${description}: survey the shop.`, subagent_type: 'worker' },
          })),
        }
      }
      return told(request.body) ? { delay_ms: 200, text: 'Wrapped up: both workers reported.' } : { text: 'not told' }
    },
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.startFilledJob(await arbor.fillAgentJob({ task: `${rootMarker}: survey the shop.`, baseUrl: `${model.url}/v1` }))

  const children = page.locator('[data-testid="agent-node"][data-depth="1"]')
  await expect(children).toHaveCount(2, { timeout: 30_000 })
  for (const child of await children.all()) await expect(child).toContainText('bash', { timeout: 30_000 })
  const root = page.locator('[data-testid="agent-node"][data-depth="0"]')
  await root.click()
  const rootId = (await root.getAttribute('data-agent-id')) ?? ''
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${rootId}"]`)
  await inspector.getByTestId('wrap-up').click()

  // All three say so at once, and the button too.
  await expect(page.getByTestId('node-wrapping-up')).toHaveCount(3)
  await expect(inspector.getByTestId('wrap-up')).toHaveText('Wrapping up…')
  await expect(inspector.getByTestId('wrap-up')).toBeDisabled()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.wrap_up"]')).toContainText('asked by you')
  await arbor.screenshot('wrap-up-asked')
  writeFileSync(path.join(server.project, 'release.flag'), '')

  await arbor.waitForJobEnd('completed')
  await expect(page.getByTestId('node-wrapping-up')).toHaveCount(0)
  // The root's trace: the request, its delivery once the children answered, their envelopes wrapped up.
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.wrap_up"]')).toHaveCount(2)
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.wrap_up"]').last()).toContainText('2 steps left')
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="subagent.end"]', { hasText: 'wrapped up' })).toHaveCount(2)
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="message"]', { hasText: 'you: wrap up' })).toHaveCount(1)
  await arbor.screenshot('wrap-up-done')

  // The shortcut is listed in the ? overlay.
  await page.locator('body').press('?')
  await expect(page.locator('[data-testid="shortcuts-help"] [data-action="wrapUp"]')).toContainText('W')
  await arbor.screenshot('wrap-up-shortcut')
  await page.keyboard.press('Escape')

  // Every agent's last request carried the wrap-up, once.
  const lastRequestOf = (marker: string) => model.requests.filter((request) => openaiView(request).first_user.includes(marker)).at(-1)
  for (const marker of [...workers, rootMarker]) {
    const body = JSON.stringify(lastRequestOf(marker)?.body)
    expect(body.split(wrapUpText)).toHaveLength(2)
  }
})
