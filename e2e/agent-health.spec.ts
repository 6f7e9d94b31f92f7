import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/fixtures'
import { openaiConversations } from '../src-main/core/providers/testing/fake-openai'
import { ArborPage } from './page-models/arbor-page'

// An agent whose process is stopped (SIGSTOP) goes red on its node, "unresponsive", with Restart
// beside Kill; Restart kills the process and the agent goes on in a new one, and the job completes.
// The server's threshold is 1.5 s (ARBOR_UNRESPONSIVE_AFTER_MS) so the test need not wait 30 s.
const rootMarker = 'E2E-AGENT-HEALTH'
const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((each) => each > 0)
  } catch {
    return []
  }
}

test('a stopped agent is shown unresponsive with Restart; Restart runs it on in a new process', async ({
  page,
  fakeModel,
  arborServer,
}) => {
  const model = await fakeModel({
    route: openaiConversations([
      {
        match: rootMarker,
        turns: [
          { delay_ms: 100, tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] },
          { delay_ms: 100, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'went on after the restart' } }] },
        ],
      },
    ]),
  })
  const server = await arborServer({ env: { ARBOR_UNRESPONSIVE_AFTER_MS: '1500' } })
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  const form = await arbor.fillAgentJob({ task: `${rootMarker}: wait for the go file.`, baseUrl: `${model.url}/v1` })
  await arbor.startFilledJob(form)

  // In its command: the node says which tool, for how long.
  await expect(arbor.root.getByTestId('node-activity-tool')).toContainText('▸ bash', { timeout: 30_000 })
  // The root's process is the agent process of the server's with a command of its own running (warm ones have none).
  const agentPid = childrenOf(server.pid).find((pid) => childrenOf(pid).length > 0)
  expect(agentPid).toBeDefined()
  process.kill(agentPid!, 'SIGSTOP')
  try {
    await expect(arbor.root.getByTestId('node-activity-unresponsive')).toContainText('✕ unresponsive', { timeout: 15_000 })
    await expect(arbor.root).toHaveClass(/unresponsive/)
    await expect(arbor.root.getByTestId('node-kill')).toBeVisible()
    await arbor.graphSettled(arbor.root)
    await arbor.screenshot('agent-unresponsive')

    await arbor.root.getByTestId('node-restart').click()
    await expect(arbor.root.getByTestId('node-activity-unresponsive')).toHaveCount(0, { timeout: 15_000 })
  } finally {
    try {
      process.kill(agentPid!, 'SIGCONT')
    } catch {
      // Killed by the restart, as it should be.
    }
  }
  writeFileSync(path.join(server.project, 'go'), '')
  await arbor.waitForJobEnd('completed')
  await expect(page.getByTestId('job-answer-text')).toContainText('went on after the restart')
})
