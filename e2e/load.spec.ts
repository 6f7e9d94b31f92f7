import { expect, test } from '@playwright/test'
import WebSocket from 'ws'
import { defaultNewJob, type NewJob } from '../src-main/core/api/job-form'
import type { ConversationScript, FakeServer } from '../src-main/core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI, type FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { childLabel, defaultLoadShape } from '../src-main/core/testing/load-job'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'

// The UI under the load of src-main/core/supervisor/load.test.ts: the real `arbor serve` runs a
// job of 200 agents, 50 at a time, each making rounds of parallel list_files calls (about 100,000
// events), against the project's own OpenAI-compatible server, while Chromium shows the job. Frame
// times and long tasks are printed, not asserted; what is asserted is that the graph ends right.
const shape = defaultLoadShape
const rootMarker = 'LOAD-ROOT'
let server: ArborServer | undefined
let model: FakeServer<FakeOpenAIResponse> | undefined

test.afterEach(async () => {
  await server?.stop()
  await model?.close()
  server = undefined
  model = undefined
})

function loadModel(): Promise<FakeServer<FakeOpenAIResponse>> {
  const done = (result: string): FakeOpenAIResponse => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
  const listing: FakeOpenAIResponse = { tool_calls: Array.from({ length: shape.callsPerTurn }, () => ({ name: 'list_files', arguments: { path: '.' } })) }
  const labels = Array.from({ length: shape.agents }, (_, index) => childLabel(index))
  const delegate: FakeOpenAIResponse = {
    tool_calls: labels.map((description) => ({ name: 'task', arguments: { description, subagent_type: 'general', prompt: `List the project (${description}).` } })),
  }
  const scripts: Array<ConversationScript<FakeOpenAIResponse>> = [
    ...labels.map((match) => ({ match, turns: [...Array.from({ length: shape.turns }, () => listing), done('listed the project')] })),
    { match: rootMarker, turns: [delegate, done(`all ${shape.agents} children done`)] },
  ]
  return startFakeOpenAI({ route: openaiConversations(scripts) })
}

/** Saves the provider's base URL (the key comes from the server's environment) and starts the job, as the UI would. */
async function startLoadJob(arbor: ArborServer, baseUrl: string): Promise<string> {
  const socket = new WebSocket(`${arbor.origin.replace('http', 'ws')}/ws?token=${arbor.token}`)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let nextId = 0
  const ask = (method: string, input: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++nextId
      const onMessage = (data: WebSocket.RawData): void => {
        const frame = JSON.parse(String(data)) as { id?: number; result?: { ok: boolean; value?: unknown; error?: { message: string } } }
        if (frame.id !== id || !frame.result) return
        socket.off('message', onMessage)
        if (frame.result.ok) resolve(frame.result.value)
        else reject(new Error(`${method}: ${frame.result.error?.message}`))
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ id, method, input }))
    })
  const job: NewJob = {
    ...defaultNewJob(),
    task: `${rootMarker}: delegate ${shape.agents} listings.`,
    provider: 'openai',
    model: 'gpt-4o-mini',
    base_url: baseUrl,
    max_depth: 1,
    max_concurrent_children: shape.concurrency,
    max_spawns_per_turn: 0,
    max_spawns_per_minute: 0,
  }
  await ask('setProviderConfig', { provider: 'openai', base_url: baseUrl, model: job.model, light_model: null })
  const { job_id: jobId } = (await ask('startJob', { kind: 'agent', job })) as { job_id: string }
  socket.close()
  return jobId
}

/** What the page offers the frame recorder (the spec is typed for Node, without the DOM library). */
interface PageGlobals {
  requestAnimationFrame(callback: (now: number) => void): number
  PerformanceObserver: new (callback: (list: { getEntries(): Array<{ startTime: number; duration: number }> }) => void) => {
    observe(options: { type: string; buffered: boolean }): void
  }
  frameTimes: number[]
  longTasks: Array<{ start: number; duration: number }>
  stopFrames: boolean
}

/** In the page from its first script: every frame's time since the previous one, and every long task. */
function recordFrames(): void {
  const page = globalThis as unknown as PageGlobals
  page.frameTimes = []
  page.longTasks = []
  page.stopFrames = false
  let last = performance.now()
  const frame = (now: number): void => {
    page.frameTimes.push(now - last)
    last = now
    if (!page.stopFrames) page.requestAnimationFrame(frame)
  }
  page.requestAnimationFrame(frame)
  new page.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) page.longTasks.push({ start: entry.startTime, duration: entry.duration })
  }).observe({ type: 'longtask', buffered: true })
}

const percentile = (sorted: number[], share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN

test('the graph stays live while 200 agents write about 100,000 events, and ends with all 201 nodes completed', async ({ page }) => {
  test.setTimeout(360_000)
  model = await loadModel()
  server = await startArborServer({ env: { OPENAI_API_KEY: 'sk-e2e-load-0000' } })
  const started = Date.now()
  const jobId = await startLoadJob(server, `${model.url}/v1`)
  await page.addInitScript(recordFrames)
  const arbor = new ArborPage(page)
  await page.goto(`${server.url}&job=${encodeURIComponent(jobId)}`)
  await expect(arbor.root).toBeVisible()
  await expect(arbor.nodesWithStatus('running').nth(10)).toBeVisible({ timeout: 60_000 })
  await arbor.screenshot('load-running')

  await expect(arbor.jobStatus).toContainText('completed', { timeout: 300_000 })
  const durationMs = Date.now() - started
  const { frameTimes, longTasks, completedAt } = await page.evaluate(() => {
    const record = globalThis as unknown as PageGlobals
    record.stopFrames = true
    return { frameTimes: record.frameTimes.slice(1), longTasks: record.longTasks, completedAt: performance.now() }
  })
  await expect(arbor.nodes).toHaveCount(shape.agents + 1)
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(shape.agents + 1)
  await expect(arbor.children).toHaveCount(shape.agents)
  await arbor.screenshot('load-completed')

  const sorted = [...frameTimes].sort((a, b) => a - b)
  const requests = model.requests.length
  console.log(
    `load e2e: ${shape.agents} agents at concurrency ${shape.concurrency}, ${requests} model requests, job done in ${(durationMs / 1000).toFixed(1)} s; ` +
      `${frameTimes.length} frames: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, ` +
      `max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms; ${longTasks.length} long tasks, longest ${Math.max(0, ...longTasks.map((task) => task.duration)).toFixed(0)} ms`,
  )
  // When the worst ones happened, in the page's clock (0: the page opened; the job was seen completed at the end).
  const worst = [...longTasks].sort((a, b) => b.duration - a.duration).slice(0, 5)
  console.log(`longest tasks (start s: duration ms), completion seen at ${(completedAt / 1000).toFixed(1)} s: ${worst.map((task) => `${(task.start / 1000).toFixed(1)}: ${task.duration.toFixed(0)}`).join(', ')}`)
  expect(requests).toBe(2 + shape.agents * (shape.turns + 1))
})
