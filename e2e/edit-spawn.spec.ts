import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// A held spawn's prompt, edited from its node's menu before it starts: the child runs with the
// edited prompt (its model requests and its inspector say so), and the edit is in its trace.
const rootMarker = 'E2E-EDIT-SPAWN'
const original = 'E2E-ORIGINAL: survey the whole shop.'
const edited = 'E2E-EDITED: read cart.ts only, and say what total() does.'
test('the node menu edits a held spawn’s prompt; on resume the child runs with it', async ({ page, fakeModel, arborServer }) => {
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'E2E-EDITED',
        turns: [{ delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'total() sums the prices' } }] }],
      },
      {
        match: 'E2E-ORIGINAL',
        turns: [{ delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'surveyed all' } }] }],
      },
      {
        match: rootMarker,
        turns: [
          {
            delay_ms: 200,
            tool_calls: [{ name: 'task', arguments: { description: 'SURVEYOR', prompt: original, subagent_type: 'general' } }],
          },
          { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const form = await arbor.fillAgentJob({ task: `${rootMarker}: find the cart total.`, baseUrl: `${model.url}/v1` })
  await form.getByTestId('job-field-spawn_paused').check({ force: true })
  await arbor.startFilledJob(form)

  // Spawning is paused: the child waits as a ghost.
  const child = arbor.nodesWithStatus('held')
  await expect(child).toBeVisible({ timeout: 30_000 })
  await expect(child).toHaveAttribute('title', original)
  const childId = (await child.getAttribute('data-agent-id')) ?? ''
  await arbor.graphSettled(child)

  // The running root's menu (right-click): inspect, steer, kill; a click outside closes it.
  await arbor.root.click({ button: 'right' })
  const menu = page.getByTestId('node-menu')
  await expect(menu).toBeVisible()
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Steer…', 'Set branch budget…', 'Wrap up', 'Kill'])
  await arbor.screenshot('node-menu-running')
  await page.getByTestId('job-toolbar').click({ position: { x: 4, y: 4 } })
  await expect(menu).toBeHidden()

  // The held child's menu from its ⋯ button, worked with the keyboard.
  await child.getByTestId('node-menu-button').click()
  await expect(menu).toHaveAttribute('data-agent-id', childId)
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Edit prompt…', 'Cancel spawn'])
  await expect(menu.getByRole('menuitem', { name: 'Inspect' })).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await expect(menu.getByRole('menuitem', { name: 'Edit prompt…' })).toBeFocused()
  await arbor.screenshot('node-menu-held')
  await page.keyboard.press('Escape')
  await expect(menu).toBeHidden()
  await child.getByTestId('node-menu-button').click()
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('ArrowUp')
  await expect(menu.getByRole('menuitem', { name: 'Edit prompt…' })).toBeFocused()
  await page.keyboard.press('Enter')

  // The dialog holds the parent's prompt; an empty one cannot be saved.
  const dialog = page.getByTestId('prompt-edit')
  await expect(dialog).toBeVisible()
  await expect(menu).toBeHidden()
  const input = dialog.getByTestId('prompt-edit-input')
  await expect(input).toBeFocused()
  await expect(input).toHaveValue(original)
  await input.fill('   ')
  await expect(dialog.getByTestId('prompt-edit-save')).toBeDisabled()
  await input.fill(edited)
  await arbor.screenshot('prompt-edit-dialog')
  await dialog.getByTestId('prompt-edit-save').click()
  await expect(dialog).toBeHidden()
  await expect(child).toHaveAttribute('title', edited)

  // Its trace shows the edit, with the prompt it replaced.
  await child.click({ button: 'right' })
  await menu.getByRole('menuitem', { name: 'Inspect' }).click()
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${childId}"]`)
  const edit = inspector.locator('[data-testid="inspector-event"][data-type="control"]', { hasText: 'prompt edited' })
  await expect(edit).toBeVisible()
  await expect(edit).toContainText(edited)
  await expect(edit).toContainText(`was: ${original}`)

  // Resume: the child starts with the edited prompt and finishes.
  await arbor.pauseToggle.click()
  await arbor.waitForJobEnd('completed')
  await expect(page.locator(`[data-testid="agent-node"][data-agent-id="${childId}"]`)).toHaveAttribute('data-status', 'completed')
  await expect(inspector.getByTestId('inspector-task')).toHaveText(edited)
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.start"]')).toContainText(edited)
  await arbor.screenshot('prompt-edited-child-done')

  type Body = { messages?: Array<{ role: string; content: string }> }
  const firstUser = (request: { body: unknown }) =>
    (request.body as Body).messages?.find((message) => message.role === 'user')?.content ?? ''
  const childRequests = model.requests.filter((request) => firstUser(request).startsWith('SURVEYOR'))
  expect(childRequests.length).toBeGreaterThan(0)
  for (const request of childRequests) {
    expect(firstUser(request)).toContain(edited)
    expect(firstUser(request)).not.toContain(original)
  }
  // An agent that has ended offers to be inspected or followed up: `.` opens the selected node's menu.
  await page.locator(`[data-testid="agent-node"][data-agent-id="${childId}"]`).click()
  await page.keyboard.press('.')
  await expect(menu).toHaveAttribute('data-agent-id', childId)
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Follow up…'])
  await page.keyboard.press('Escape')
  await expect(menu).toBeHidden()
})
