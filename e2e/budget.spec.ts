import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// Budgets that pause (issue 21 §3): at the job's token cap every agent waits at its next step
// (status paused, nothing killed); the toolbar's Raise to… raises the cap and they go on. The
// helper's branch has a cap of its own (the root's task gave budget_tokens): it pauses there while
// the root goes on, and the node menu's Set branch budget… resumes it.
const rootMarker = 'E2E-BUDGET'
const spend = { prompt_tokens: 3000, completion_tokens: 10 }

test('the job pauses at its cap; Raise to… resumes it; a branch pauses at its own cap and Set branch budget… resumes it', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'HELPER',
        turns: [
          { delay_ms: 50, usage: spend, tool_calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
          { delay_ms: 50, usage: spend, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'HELPER-RESULT: read it' } }] },
        ],
      },
      {
        match: rootMarker,
        turns: [
          {
            delay_ms: 50,
            usage: spend,
            tool_calls: [
              {
                name: 'task',
                arguments: {
                  description: 'HELPER',
                  prompt: 'HELPER: read README.md.',
                  subagent_type: 'general',
                  background: true,
                  budget_tokens: 2500,
                },
              },
            ],
          },
          { delay_ms: 50, usage: spend, tool_calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
          { delay_ms: 50, usage: spend, tool_calls: [{ name: 'await_tasks', arguments: {} }] },
          { delay_ms: 50, usage: spend, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done, within budget' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const dialog = await arbor.fillAgentJob({ task: `${rootMarker}: survey the shop.`, baseUrl: `${model.url}/v1` })
  await dialog.getByTestId('job-field-job_token_budget').fill('5000')
  await expect(dialog.getByTestId('job-field-on_budget')).toHaveValue('pause')
  await dialog.getByTestId('job-field-on_budget').scrollIntoViewIfNeeded()
  await arbor.screenshot('budget-new-job')
  await arbor.startFilledJob(dialog)

  // More than 5,000 tokens spent (the calls in flight finish): the root and its helper wait, nothing is killed.
  const root = arbor.root
  const helper = page.locator('[data-testid="agent-node"][data-depth="1"]')
  await expect(root).toHaveAttribute('data-status', 'paused', { timeout: 30_000 })
  await expect(helper).toHaveAttribute('data-status', 'paused', { timeout: 30_000 })
  await expect(page.getByTestId('budget-paused')).toHaveText('2 paused at the budget')
  await expect(root.getByTestId('node-wait')).toContainText("the job's token budget (5,000) is spent")
  // The helper's branch cap: the 2,500 its parent asked for, clamped to what the job had left (under 2,000).
  await expect(helper.getByTestId('node-branch-meter')).toContainText(/^branch .* \/ [\d.]+k? tok$/)
  await arbor.graphSettled(helper)
  await page.getByTestId('budget-raise').click()
  await expect(page.getByTestId('budget-raise-form')).toBeVisible()
  await arbor.screenshot('budget-paused')

  // A cap not above what is spent is refused, in the form. What is spent depends on how many
  // calls were in flight when the cap was reached (two or three of 3,010), never under the cap.
  await page.getByTestId('budget-raise-form-tokens').fill('5000')
  await page.getByTestId('budget-raise-form-save').click()
  await expect(page.getByTestId('budget-raise-form-error')).toContainText(/is not above the [\d,]+ tokens already spent/)
  await page.getByTestId('budget-raise-form-tokens').fill('100,000')
  await page.getByTestId('budget-raise-form-save').click()
  await expect(page.getByTestId('budget-raise-form')).toBeHidden()
  await expect(page.getByTestId('budget-tokens')).toHaveAttribute('data-budget', '100000')

  // The root goes on; the helper goes on too, until its own branch is spent: then it alone waits.
  await expect(helper.getByTestId('node-wait')).toContainText(/its branch: token budget \([\d,]+\) is spent/, { timeout: 30_000 })
  await expect(helper).toHaveAttribute('data-status', 'paused')
  await expect(page.getByTestId('budget-paused')).toHaveCount(0)
  await arbor.graphSettled(helper)
  await arbor.screenshot('budget-branch-paused')

  // Set branch budget… from the helper's menu resumes it, and the job completes.
  await helper.getByTestId('node-menu-button').click()
  await page.getByRole('menuitem', { name: 'Set branch budget…' }).click()
  await page.getByTestId('branch-budget-tokens').fill('50000')
  await page.getByTestId('branch-budget-save').click()
  await arbor.waitForJobEnd('completed')
  await expect(helper).toHaveAttribute('data-status', 'completed')
  await expect(helper.getByTestId('node-branch-meter')).toContainText('/ 50')
  await arbor.screenshot('budget-completed')
})
