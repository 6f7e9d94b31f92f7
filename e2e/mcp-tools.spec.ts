import { expect, test } from './support/fixtures'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ConversationView } from '../src-main/core/providers/testing/fake-http'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// MCP tools through the UI: Settings lists the project's servers and, on "Show tools", their
// tools; a child calls one (a real stdio MCP server written with the SDK), the call waits in the
// approvals panel (ask mode) and shows in the child's inspector as a tool call like a built-in one.
const stdioServer = fileURLToPath(new URL('../src-main/core/mcp/testing/stdio-server.mjs', import.meta.url))
const rootMarker = 'E2E-MCP'

function addMcpConfig(project: string): void {
  writeFileSync(
    path.join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: [stdioServer] } } }),
  )
  mkdirSync(path.join(project, '.arbor/agents'), { recursive: true })
  writeFileSync(
    path.join(project, '.arbor/agents/mcp-worker.md'),
    '---\nname: mcp-worker\ndescription: Calls the MCP tools.\ntools: [read_file, mcp__tools__echo]\nmcpServers: [tools]\n---\nCall the tools you are told to call.\n',
  )
}

test('Settings shows the MCP servers and their tools; an MCP call is approved and shows in the inspector', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  let echoed = ''
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: 'MCP-CHILD',
        turns: [
          { delay_ms: 200, text: 'Echoing.', tool_calls: [{ name: 'mcp__tools__echo', arguments: { text: 'from the inspector' } }] },
          (view: ConversationView) => {
            echoed = view.tool_results.at(-1)?.content ?? ''
            return { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: echoed } }] }
          },
        ],
      },
      {
        match: rootMarker,
        turns: [
          {
            delay_ms: 200,
            tool_calls: [
              { name: 'task', arguments: { description: 'MCP-CHILD', prompt: 'MCP-CHILD: echo.', subagent_type: 'mcp-worker' } },
            ],
          },
          { delay_ms: 200, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'echoed' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer()
  addMcpConfig(server.project)
  const arbor = new ArborPage(page)
  await arbor.open(server.url)

  // Settings ▸ MCP servers: listed without starting; "Show tools" lists them.
  await page.getByTestId('open-settings').click()
  const section = page.getByTestId('mcp-servers')
  await section.scrollIntoViewIfNeeded()
  const card = section.locator('[data-testid="mcp-server"][data-server="tools"]')
  await expect(card.getByTestId('mcp-server-status')).toHaveText('Not started')
  await expect(card).toContainText('used by mcp-worker')
  await section.getByTestId('mcp-show-tools').click()
  await expect(card.getByTestId('mcp-server-status')).toHaveText('Tools listed', { timeout: 30_000 })
  await expect(card.getByTestId('mcp-tools')).toContainText('mcp__tools__echo')
  await expect(card.getByTestId('mcp-tools')).toContainText('Echoes its text back, upper-cased.')
  await section.scrollIntoViewIfNeeded()
  await page.screenshot({ path: ArborPage.screenshotFile('mcp-settings') })
  await page.getByTestId('settings-close').click()

  // A job in ask mode: the child's MCP call waits for the user, then runs.
  const dialog = await arbor.fillAgentJob({ task: `${rootMarker}: echo through MCP.`, baseUrl: `${model.url}/v1` })
  await dialog.getByTestId('job-field-subagent_approvals').selectOption('ask')
  await arbor.startFilledJob(dialog)
  const approval = page.locator('[data-testid="approval"]', { hasText: 'mcp__tools__echo' })
  await expect(approval).toBeVisible({ timeout: 30_000 })
  await expect(approval).toContainText('{"text":"from the inspector"}')
  await arbor.screenshot('mcp-approval')
  await approval.getByTestId('approval-approve').click()
  await arbor.waitForJobEnd('completed')
  expect(echoed).toContain('ECHO: FROM THE INSPECTOR')

  // The child's inspector shows the call and its result as it shows a built-in tool's.
  const child = page.locator('[data-testid="agent-node"][data-depth="1"]')
  await arbor.dragToDock(child)
  const childId = (await child.getAttribute('data-agent-id')) ?? ''
  const inspector = page.locator(`[data-testid="inspector"][data-agent-id="${childId}"]`)
  await expect(
    inspector.locator('[data-testid="inspector-event"][data-type="tool.call"]', { hasText: 'mcp__tools__echo ·' }).first(),
  ).toBeVisible()
  await expect(
    inspector.locator('[data-testid="inspector-event"][data-type="tool.result"]', { hasText: 'mcp__tools__echo ·' }).first(),
  ).toBeVisible()
  await arbor.screenshot('mcp-inspector')
})
