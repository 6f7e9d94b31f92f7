import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// Who changed what: two workers change files of their own, then a third edits the first one's
// file again. Each node's Changes tab shows its own files; a diff, unified and side by side; the
// first worker's revert is refused, naming the later one; the second's puts its file back.
const rootMarker = 'E2E-CHANGES'
const complete = (result: string, delay_ms = 100) => ({ delay_ms, tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const call = (name: string, args: Record<string, unknown>) => ({ delay_ms: 100, tool_calls: [{ name, arguments: args }] })
const task = (description: string) => ({
  name: 'task',
  arguments: { description, prompt: `${description}: do your part.`, subagent_type: 'worker' },
})

test('the Changes tab, a diff unified and side by side, a refused revert and one that puts the file back', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'EDITOR',
        turns: [
          call('edit_file', {
            path: 'cart.ts',
            old_string: 'reduce((a, b) => a + b, 0)',
            new_string: 'reduce((sum, price) => sum + price, 0)',
          }),
          call('write_file', {
            path: 'src/discount.py',
            content: 'def discount(total: float) -> float:\n    """Ten percent off."""\n    return total * 0.9\n',
          }),
          complete('cart and discount done'),
        ],
      },
      {
        match: 'WRITER',
        turns: [call('write_file', { path: 'README.md', content: '# Shop\n\nNow with discounts.\n' }), complete('readme done')],
      },
      {
        match: 'FIXER',
        turns: [
          call('edit_file', { path: 'cart.ts', old_string: 'sum + price', new_string: 'sum + Math.round(price)' }),
          complete('fixed'),
        ],
      },
      {
        match: rootMarker,
        turns: [
          { delay_ms: 100, tool_calls: [task('EDITOR'), task('WRITER')] },
          { delay_ms: 100, tool_calls: [task('FIXER')] },
          complete('All changed.'),
        ],
      },
    ]),
  })
  const server = await arborServer()
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await arbor.startFilledJob(await arbor.fillAgentJob({ task: `${rootMarker}: add a discount`, baseUrl: `${model.url}/v1` }))
  await arbor.waitForJobEnd('completed')
  const node = (label: string) =>
    page.locator('[data-testid="agent-node"]', { has: page.locator('.agent-node__label', { hasText: label }) })
  await expect(page.locator('[data-testid="agent-node"]')).toHaveCount(4)
  // The badges: files each node's own changes left changed.
  await expect(node('EDITOR').getByTestId('node-changes-badge')).toHaveText('±2')
  await expect(node('WRITER').getByTestId('node-changes-badge')).toHaveText('±1')
  await expect(node('FIXER').getByTestId('node-changes-badge')).toHaveText('±1')
  await expect(page.locator('[data-testid="agent-node"][data-depth="0"]').getByTestId('node-changes-badge')).toHaveCount(0)
  // The toolbar counts the job's files, each once (cart.ts was changed by two agents).
  await expect(page.getByTestId('job-changes')).toHaveText('Changes (3)')

  // The EDITOR's Changes tab: exactly its two files.
  await node('EDITOR').getByTestId('node-changes-badge').click()
  const editorId = (await node('EDITOR').getAttribute('data-agent-id')) ?? ''
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${editorId}"]`)
  const panel = inspector.getByTestId('changes-panel')
  await expect(panel.getByTestId('changed-file')).toHaveCount(2)
  await expect(panel.getByTestId('changed-file').nth(0)).toHaveAttribute('data-path', 'cart.ts')
  await expect(panel.getByTestId('changed-file').nth(1)).toHaveAttribute('data-path', 'src/discount.py')
  await expect(panel.getByTestId('changes-summary')).toHaveText('2 files changed · +4 −1')
  await arbor.screenshot('changes-tab')

  // Its diff of the Python file, coloured, then cart.ts unified and side by side.
  await panel.locator('[data-testid="changed-file"][data-path="src/discount.py"]').click()
  const diff = panel.getByTestId('diff-view')
  await expect(diff.locator('.hljs-keyword').first()).toHaveText('def')
  await panel.locator('[data-testid="changed-file"][data-path="cart.ts"]').click()
  await expect(diff).toHaveAttribute('data-path', 'cart.ts')
  await expect(diff.locator('.diff__line.removed')).toHaveCount(1)
  await expect(diff.locator('.diff__line.added')).toContainText('sum + price')
  await arbor.screenshot('changes-diff-unified')
  await diff.getByTestId('diff-split').click()
  await expect(diff.locator('.diff__table.split tr')).toHaveCount(1)
  await expect(diff.locator('.diff__table.split .diff__code.removed')).toContainText('a + b')
  await expect(diff.locator('.diff__table.split .diff__code.added')).toContainText('sum + price')
  await arbor.screenshot('changes-diff-split')

  // The hunk's link shows the tool call in the trace.
  await diff.getByTestId('hunk-tool-call').click()
  await expect(inspector.getByTestId('inspector-events')).toBeVisible()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="tool.call"]').first()).toBeVisible()

  // Revert the EDITOR: refused, the FIXER's later change named, with a link to its diff.
  await node('EDITOR').click({ button: 'right' })
  await page.getByTestId('node-menu').getByRole('menuitem', { name: 'Revert changes…' }).click()
  await page.getByTestId('revert-confirm').click()
  const refusal = page.getByTestId('revert-refusal')
  await expect(refusal).toContainText('cart.ts was changed later by FIXER')
  await arbor.screenshot('changes-revert-refused')
  expect(readFileSync(path.join(server.project, 'cart.ts'), 'utf8')).toContain('Math.round(price)')
  await refusal.getByTestId('revert-block-diff').click()
  const fixerId = (await node('FIXER').getAttribute('data-agent-id')) ?? ''
  const fixerDiff = page.locator(`[data-testid="inspector"][data-agent-id="${fixerId}"]`).getByTestId('diff-view')
  await expect(fixerDiff).toHaveAttribute('data-path', 'cart.ts')
  await expect(fixerDiff.locator('.diff__line.added')).toContainText('Math.round(price)')

  // Revert the WRITER: its README comes back, its badge goes; the others keep theirs.
  await node('WRITER').click({ button: 'right' })
  await page.getByTestId('node-menu').getByRole('menuitem', { name: 'Revert changes…' }).click()
  await page.getByTestId('revert-confirm').click()
  await expect(page.getByTestId('revert-dialog')).toHaveCount(0)
  await expect(node('WRITER').getByTestId('node-changes-badge')).toHaveCount(0)
  expect(readFileSync(path.join(server.project, 'README.md'), 'utf8')).toBe('# Shop\n\nA tiny shop used by the Arbor e2e tests.\n')
  await expect(node('EDITOR').getByTestId('node-changes-badge')).toHaveText('±2')

  // The whole job's Changes, from the toolbar.
  await expect(page.getByTestId('job-changes')).toHaveText('Changes (2)')
  await page.getByTestId('job-changes').click()
  const drawer = page.getByTestId('job-changes-drawer')
  await expect(drawer.getByTestId('changed-file')).toHaveCount(2)
  await arbor.screenshot('changes-job')
  await page.getByRole('button', { name: 'Close changes' }).click()

  // Export with the files' contents: each version a file.change names, once, before its first event.
  await page.getByTestId('export-menu').click()
  await expect(page.getByTestId('export-options').getByRole('menuitem')).toHaveCount(3)
  await arbor.screenshot('export-menu')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-jsonl-contents').click()])
  expect(download.suggestedFilename()).toMatch(/\.contents\.jsonl$/)
  const lines = readFileSync(await download.path(), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { type?: string; hash?: string; base64?: string; data?: Record<string, unknown> })
  const contents = new Map(lines.filter((line) => line.type === 'file.content').map((line) => [line.hash!, line.base64!]))
  const changes = lines.filter((line) => line.type === 'file.change')
  expect(changes.length).toBeGreaterThanOrEqual(5)
  for (const change of changes) {
    for (const hash of [change.data!.hash_before, change.data!.hash_after])
      if (typeof hash === 'string') expect(contents.has(hash)).toBe(true)
  }
  const fixerChange = changes.filter((change) => change.data!.path === 'cart.ts').at(-1)!
  expect(Buffer.from(contents.get(String(fixerChange.data!.hash_after))!, 'base64').toString('utf8')).toContain('Math.round(price)')
})
