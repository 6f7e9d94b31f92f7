import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// A spawn past the job's max_agents waits as a ghost that says why, with Allow and Cancel; Allow
// starts it past the cap and the job completes.
const rootMarker = 'E2E-SPAWN-CAPS'
const finish = (result: string) => ({ delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const spawn = (description: string) => ({
  name: 'task',
  arguments: { description, prompt: `E2E-CHILD ${description}: look at the shop.`, subagent_type: 'general' },
})

test('a spawn past max_agents is held with its reason, and Allow on its node starts it', async ({ page, fakeModel, arborServer }) => {
  const model = await fakeModel({
    route: openaiConversations([
      { match: 'E2E-CHILD', turns: [finish('looked')] },
      { match: rootMarker, turns: [{ delay_ms: 100, tool_calls: ['FIRST', 'SECOND', 'THIRD'].map(spawn) }, finish('all three done')] },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const form = await arbor.fillAgentJob({ task: `${rootMarker}: look at the shop three ways.`, baseUrl: `${model.url}/v1` })
  await expect(form.getByTestId('job-field-max_agents')).toHaveValue('200')
  await form.getByTestId('job-field-max_agents').fill('2')
  await arbor.startFilledJob(form)

  const held = arbor.nodesWithStatus('held')
  await expect(held).toBeVisible({ timeout: 30_000 })
  await expect(held.getByTestId('node-held-reason')).toHaveText('held: job has 2 agents (max_agents)')
  await expect(held.getByTestId('node-allow-spawn')).toBeVisible()
  await expect(held.getByTestId('node-cancel-spawn')).toBeVisible()
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(2, { timeout: 30_000 })
  await arbor.graphSettled(held)

  // Its menu offers the same.
  await held.getByTestId('node-menu-button').click()
  const menu = page.getByTestId('node-menu')
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Allow spawn', 'Edit prompt…', 'Cancel spawn'])
  await page.keyboard.press('Escape')
  await expect(menu).toBeHidden()
  await arbor.screenshot('spawn-held-max-agents')

  const heldId = (await held.getAttribute('data-agent-id')) ?? ''
  await held.getByTestId('node-allow-spawn').click()
  await arbor.waitForJobEnd('completed')
  await expect(page.locator(`[data-testid="agent-node"][data-agent-id="${heldId}"]`)).toHaveAttribute('data-status', 'completed')
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(4)
})
