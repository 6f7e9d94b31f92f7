import { expect, test } from './support/fixtures'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { ConversationView } from '../src-main/core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI, type FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'
import { apiClient } from './support/api-client'

// Subagents' risky commands in ask mode, all through the UI: each waits in the approvals panel
// with the agent's path; approved once, approved for the job (the same command then runs
// unasked), and denied with a message that the model reads in its next request.
const rootMarker = 'E2E-ASK'
const tidy = 'rm -f stale.txt'
const keep = 'rm keep.txt'
const denial = 'Keep that file: it is the user’s. List the folder instead.'
const bash = (command: string, delay_ms = 300): FakeOpenAIResponse => ({
  delay_ms,
  text: `Running ${command}.`,
  tool_calls: [{ name: 'bash', arguments: { command } }],
})
const finish = (result: string): FakeOpenAIResponse => ({
  delay_ms: 200,
  tool_calls: [{ name: 'attempt_completion', arguments: { result } }],
})
const child = (label: string, turns: Array<FakeOpenAIResponse | ((view: ConversationView) => FakeOpenAIResponse)>) => ({
  match: label,
  turns,
})
const spawn = (label: string) => ({
  name: 'task',
  arguments: { description: label, prompt: `${label}: tidy the project.`, subagent_type: 'general' },
})

function askModel(): Parameters<typeof startFakeOpenAI>[0] {
  return {
    route: openaiConversations([
      child('TIDY-1', [bash(tidy), finish('removed stale.txt')]),
      child('TIDY-2', [bash(tidy, 2500), finish('removed it again')]),
      child('TIDY-3', [bash(tidy, 6000), finish('and again')]),
      child('KEEPER', [bash(keep, 4000), (view) => finish(`kept it: ${view.tool_results.at(-1)?.content ?? ''}`)]),
      { match: rootMarker, turns: [{ delay_ms: 300, tool_calls: ['TIDY-1', 'TIDY-2', 'TIDY-3', 'KEEPER'].map(spawn) }, finish('tidied')] },
    ]),
  }
}

test("ask mode: a subagent's command waits with its path; once, for the job, and a denial with a message", async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const model = await fakeModel(askModel())
  const server = await arborServer()
  writeFileSync(path.join(server.project, 'stale.txt'), 'old\n')
  writeFileSync(path.join(server.project, 'keep.txt'), 'keep\n')
  const arbor = new ArborPage(page)
  await arbor.open(server.url)

  const dialog = await arbor.fillAgentJob({ task: `${rootMarker}: tidy the project.`, baseUrl: `${model.url}/v1` })
  await dialog.getByTestId('job-field-max_concurrent_children').fill('4')
  await dialog.getByTestId('job-field-subagent_approvals').selectOption('ask')
  await dialog.getByTestId('job-field-subagent_approvals').scrollIntoViewIfNeeded()
  await arbor.screenshot('new-job-ask')
  await arbor.startFilledJob(dialog)
  await expect(arbor.subagentApprovals).toHaveAttribute('data-mode', 'ask')

  // TIDY-1 waits: its row names the path, and the job list counts it.
  const row = (label: string) =>
    page.locator('[data-testid="approval"]', { has: page.getByTestId('approval-path').getByText(`root › ${label}`) })
  await expect(row('TIDY-1')).toBeVisible({ timeout: 30_000 })
  await expect(row('TIDY-1')).toContainText(tidy)
  await expect(row('TIDY-1').getByTestId('approval-sandbox')).toHaveText('runs in the sandbox')
  await expect(page.locator('[data-testid="agent-node"][data-status="waiting_approval"]').first()).toContainText('waiting for you')
  await expect(page.locator('[data-testid="job-item"] [data-testid="job-waiting"]')).toHaveText(/[1-4]/)
  await arbor.screenshot('approvals-ask')
  await row('TIDY-1').getByTestId('approval-approve').click()
  await expect.poll(() => existsSync(path.join(server.project, 'stale.txt')), { timeout: 20_000 }).toBe(false)

  // TIDY-2 asks again for the same command: approved for the job this time.
  await expect(row('TIDY-2')).toBeVisible({ timeout: 30_000 })
  await row('TIDY-2').getByTestId('approval-approve-job').click()
  await expect(row('TIDY-2')).toHaveCount(0)
  // The rule is shown, with a way to take it back, while the job runs.
  await expect(page.getByTestId('approval-rule')).toContainText(tidy)

  // KEEPER's command is denied with a message.
  await expect(row('KEEPER')).toBeVisible({ timeout: 30_000 })
  await row('KEEPER').getByTestId('approval-deny-say').click()
  await row('KEEPER').getByTestId('approval-message').fill(denial)
  await arbor.screenshot('approvals-deny-message')
  await row('KEEPER').getByTestId('approval-deny-send').click()
  await expect(row('KEEPER')).toHaveCount(0)

  // TIDY-3's identical command never shows: the job's rule approves it.
  await arbor.waitForJobEnd('completed')
  await expect(page.getByTestId('approval')).toHaveCount(0)
  expect(readFileSync(path.join(server.project, 'keep.txt'), 'utf8')).toBe('keep\n')
  const keeperRequests = model.requests.filter((request) => JSON.stringify(request.body).includes('KEEPER: tidy'))
  expect(JSON.stringify(keeperRequests.at(-1)?.body)).toContain(`The user says: ${denial}`)
  const others = model.requests.filter((request) => !JSON.stringify(request.body).includes('KEEPER: tidy'))
  expect(others.some((request) => JSON.stringify(request.body).includes(denial))).toBe(false)

  // The trace says who decided what: once, for the job, the rule, and the denial with its message.
  const client = await apiClient(server)
  const { jobs } = (await client.ask('listJobs', {})) as { jobs: Array<{ id: string }> }
  const { events } = (await client.ask('getReplayEvents', { job_id: jobs[0]!.id })) as {
    events: Array<{ type: string; data: Record<string, unknown> }>
  }
  client.close()
  // In the order the user clicked (and TIDY-3 asked): compared without it.
  const decisions = events
    .filter((event) => event.type === 'approval.decision')
    .map((event) => [event.data.decision, event.data.by, event.data.scope ?? 'once'].join(' '))
    .sort()
  expect(decisions).toEqual(['approved auto_approve job', 'approved user job', 'approved user once', 'denied user once'])
  await arbor.screenshot('approvals-ask-done')
})
