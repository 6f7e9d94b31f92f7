import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { makeFixtureProject } from './support/arbor-server'
import { ArborPage } from './page-models/arbor-page'

// Two worktree children change cart.ts's one line differently. From their nodes' menus the user
// merges the first (the project's cart.ts has it), then the second: the conflict dialog lists
// cart.ts with its hunks and nothing is applied; Discard removes its worktree and keeps its branch.
const rootMarker = 'E2E-WORKTREES'
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' })
const original = 'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0)\n'
const edit = (description: string, replacement: string) => ({
  match: `${description}: `,
  turns: [
    { delay_ms: 100, tool_calls: [{ name: 'edit_file', arguments: { path: 'cart.ts', old_string: 'a + b, 0', new_string: replacement } }] },
    { delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result: `${description} done` } }] },
  ],
})
const isolated = (description: string) => ({
  name: 'task',
  arguments: { description, prompt: `${description}: change the total in cart.ts`, subagent_type: 'worker', isolation: 'worktree' },
})

test('Merge and Discard on worktree children’s nodes; a merge conflict is shown file by file and applies nothing', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const project = makeFixtureProject()
  git(project, 'init', '-q', '-b', 'main')
  git(project, 'add', '-A')
  git(project, '-c', 'user.name=e2e', '-c', 'user.email=e2e@localhost', 'commit', '-qm', 'the shop')
  const model = await fakeModel({
    route: openaiConversations([
      edit('ROUNDING', 'Math.round(a + b), 0'),
      edit('DISCOUNT', '(a + b) * 0.9, 0'),
      {
        match: rootMarker,
        turns: [
          { delay_ms: 100, tool_calls: [isolated('ROUNDING'), isolated('DISCOUNT')] },
          { delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'two branches to choose from' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer({ project })
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const form = await arbor.fillAgentJob({ task: `${rootMarker}: change the cart total two ways.`, baseUrl: `${model.url}/v1` })
  await arbor.startFilledJob(form)
  await arbor.waitForJobEnd('completed')
  expect(git(project, 'branch', '--list', 'arbor/*').trim().split('\n')).toHaveLength(2)
  // The children worked in their worktrees: the project's own cart.ts is as it was.
  expect(readFileSync(path.join(project, 'cart.ts'), 'utf8')).toBe(original)

  const rounding = arbor.children.filter({ hasText: 'ROUNDING' })
  const discount = arbor.children.filter({ hasText: 'DISCOUNT' })
  await expect(rounding).toHaveAttribute('data-status', 'completed')
  await expect(discount).toHaveAttribute('data-status', 'completed')
  await arbor.graphSettled(rounding)
  const menu = page.getByTestId('node-menu')

  // Merge the first: applied to the project's working tree.
  await rounding.click({ button: 'right' })
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Show changes', 'Follow up…', 'Merge', 'Discard'])
  await arbor.screenshot('worktree-node-menu')
  await menu.getByRole('menuitem', { name: 'Merge' }).click()
  await expect(page.getByTestId('notice')).toContainText(/Merged arbor\/.*rounding.* 1 file/)
  expect(readFileSync(path.join(project, 'cart.ts'), 'utf8')).toContain('Math.round(a + b), 0')
  // Merged, and its clean worktree removed: its changes are now the project's, which Revert could undo.
  await rounding.click({ button: 'right' })
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Show changes', 'Follow up…', 'Revert changes…'])
  await page.keyboard.press('Escape')
  // The job's Changes: the project folder's cart.ts (the merge, by ROUNDING), then each worktree's, by branch.
  await page.getByTestId('job-changes').click()
  const panel = page.getByTestId('changes-panel')
  await expect(panel.getByTestId('changes-group')).toHaveText([
    'Project folder',
    /⎇ arbor\/.*\/discount-.* in its worktree/,
    /⎇ arbor\/.*\/rounding-.* in its worktree/,
  ])
  await expect(panel.getByTestId('changed-file')).toHaveCount(3)
  await expect(panel.getByTestId('changed-file').first()).toContainText('ROUNDING (merged)')
  await panel.getByTestId('changed-file').nth(1).click()
  await expect(page.getByTestId('diff-view')).toContainText('(a + b) * 0.9, 0')
  await arbor.screenshot('changes-worktree-groups')
  await page.getByRole('button', { name: 'Close changes' }).click()

  // Merge the second: it conflicts; the dialog lists cart.ts with its hunk; nothing is applied.
  const before = readFileSync(path.join(project, 'cart.ts'))
  await discount.click({ button: 'right' })
  await menu.getByRole('menuitem', { name: 'Merge' }).click()
  const dialog = page.getByTestId('merge-conflict')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('merge-conflict-file')).toHaveCount(1)
  await expect(dialog.getByTestId('merge-conflict-file')).toHaveAttribute('data-path', 'cart.ts')
  await expect(dialog).toContainText('Nothing was applied')
  await expect(dialog.locator('.merge-conflict__line--ours')).toContainText('Math.round(a + b), 0')
  await expect(dialog.locator('.merge-conflict__line--theirs')).toContainText('(a + b) * 0.9, 0')
  await arbor.screenshot('merge-conflict')
  expect(readFileSync(path.join(project, 'cart.ts')).equals(before)).toBe(true)
  await dialog.getByTestId('merge-conflict-close').click()
  await expect(dialog).toBeHidden()

  // Opened again, the app names the worktree left behind (and deletes nothing).
  await page.reload()
  await expect(page.getByTestId('notice')).toContainText(/1 worktree an earlier job left is still here \(arbor\/.*discount-/)
  await arbor.screenshot('worktree-left-notice')
  await page.getByTestId('job-item').first().click()
  await expect(discount).toHaveAttribute('data-status', 'completed')
  await arbor.graphSettled(discount)

  // Discard: the worktree goes, the branch stays.
  const worktrees = git(project, 'worktree', 'list', '--porcelain')
    .split('\n\n')
    .map((block) => ({ path: /^worktree (.*)$/m.exec(block)?.[1] ?? '', branch: /^branch refs\/heads\/(.*)$/m.exec(block)?.[1] ?? '' }))
    .filter((listed) => listed.branch.startsWith('arbor/'))
  expect(worktrees).toHaveLength(1)
  await discount.click({ button: 'right' })
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Show changes', 'Follow up…', 'Merge', 'Discard'])
  await menu.getByRole('menuitem', { name: 'Discard' }).click()
  await expect(page.getByTestId('notice')).toContainText('the branch is kept')
  expect(existsSync(worktrees[0]!.path)).toBe(false)
  expect(git(project, 'branch', '--list', worktrees[0]!.branch).trim()).toBe(worktrees[0]!.branch)
  expect(readFileSync(path.join(project, 'cart.ts')).equals(before)).toBe(true)
})
