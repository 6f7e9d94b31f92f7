import { expect, test } from '@playwright/test'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ArborPage } from './page-models/arbor-page'
import { openInArbor } from './support/arbor-server'

// `arbor open SESSION.jsonl` on a Claude Code 2.1.x session (subagents/ + meta.json), through the
// real built CLI and its server, in Debian's Chromium: the tree shows every subagent, nested and
// background ones included, and a subagent's inspector shows its messages and tool calls.
const repoRoot = path.resolve(import.meta.dirname, '..')
const session = path.join(repoRoot, 'src-main/core/import/claude-code/fixtures/v2-1-subagents/3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13.jsonl')
const sessionId = '3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13'
const agentId = (key: string): string => `agent_cc_${sessionId}_${key}`

let opened: Awaited<ReturnType<typeof openInArbor>> | null = null

test.afterEach(async () => {
  await opened?.stop()
  opened = null
})

/** Starts `arbor open` with its own data folder; resolves with the URL it prints. */
async function openSession(file = session): Promise<string> {
  opened = await openInArbor(file)
  return opened.url
}

test('opens a Claude Code session read-only: every subagent in the tree, a subagent inspected', async ({ page }) => {
  const url = await openSession()
  expect(new URL(url).searchParams.get('job')).toBe(`job_cc_${sessionId}`)
  const arbor = new ArborPage(page)
  await arbor.open(url)
  await expect(arbor.nodes).toHaveCount(6)
  const root = agentId('root')
  expect(await arbor.graphTree()).toEqual({
    [root]: { parent: null, depth: 0, status: 'completed', profile: 'claude-code' },
    [agentId('a1b3d5f7a9c1e3b5d')]: { parent: root, depth: 1, status: 'completed', profile: 'Explore' },
    [agentId('d4f6b8d0f2b4d6f8a')]: { parent: agentId('a1b3d5f7a9c1e3b5d'), depth: 2, status: 'completed', profile: 'general-purpose' },
    [agentId('b2c4e6a8b0d2f4a6c')]: { parent: root, depth: 1, status: 'completed', profile: 'general-purpose' },
    [agentId('toolu_21_F')]: { parent: root, depth: 1, status: 'failed', profile: 'nope' },
    [agentId('c3e5a7c9e1a3c5e7f')]: { parent: root, depth: 1, status: 'completed', profile: 'general-purpose' },
  })
  await expect(page.locator(`[data-testid="agent-node"][data-agent-id="${agentId('a1b3d5f7a9c1e3b5d')}"]`)).toContainText('Map the code')
  await arbor.screenshot('claude-session-tree')

  // The nested subagent's trace: its prompt, its Read call with the result, and its answer.
  const nested = page.locator(`[data-testid="agent-node"][data-agent-id="${agentId('d4f6b8d0f2b4d6f8a')}"]`)
  await nested.dragTo(page.getByTestId('inspector-dock'))
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${agentId('d4f6b8d0f2b4d6f8a')}"]`)
  await expect(inspector).toBeVisible()
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="tool.call"]')).toHaveCount(1)
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="tool.call"]')).toContainText('Read')
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="llm.call"]')).toHaveCount(2)
  await expect(inspector).toContainText('ESM package named shop.')
  await expect(inspector.locator('[data-testid="inspector-event"][data-type="agent.end"]')).toHaveCount(1)
  await arbor.screenshot('claude-session-inspector')

  // The timeline: a lane per agent, the background agent's overlapping the others.
  await page.getByTestId('view-timeline').click()
  await expect(page.getByTestId('timeline-lane')).toHaveCount(6)
  await arbor.screenshot('claude-session-timeline')
})

const realSession = path.resolve(repoRoot, '../shared/fixtures/claude-code-session-v2-1-114-parallel-agents.jsonl')

test.describe(() => {
  test.skip(!existsSync(realSession), '../shared/fixtures is not beside this checkout')
  test('opens a real Claude Code 2.1.114 session: three parallel teammates under the root', async ({ page }) => {
    const arbor = new ArborPage(page)
    await arbor.open(await openSession(realSession))
    await expect(arbor.nodes).toHaveCount(4)
    await expect(arbor.children).toHaveCount(3)
    await expect(arbor.nodesWithStatus('completed')).toHaveCount(4)
    await arbor.screenshot('claude-session-real-2-1-114')
  })
})
