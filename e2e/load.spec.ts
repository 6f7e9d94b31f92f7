import { expect, test, type CDPSession, type Page } from '@playwright/test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { defaultNewJob, type NewJob } from '../src-main/core/api/job-form'
import type { ConversationScript, FakeServer } from '../src-main/core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI, type FakeOpenAIResponse } from '../src-main/core/providers/testing/fake-openai'
import { childLabel, defaultLoadShape } from '../src-main/core/testing/load-job'
import { ArborPage } from './page-models/arbor-page'
import { apiClient } from './support/api-client'
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
  const listing: FakeOpenAIResponse = {
    tool_calls: Array.from({ length: shape.callsPerTurn }, () => ({ name: 'list_files', arguments: { path: '.' } })),
  }
  const labels = Array.from({ length: shape.agents }, (_, index) => childLabel(index))
  const delegate: FakeOpenAIResponse = {
    tool_calls: labels.map((description) => ({
      name: 'task',
      arguments: { description, subagent_type: 'general', prompt: `List the project (${description}).` },
    })),
  }
  const scripts: Array<ConversationScript<FakeOpenAIResponse>> = [
    ...labels.map((match) => ({ match, turns: [...Array.from({ length: shape.turns }, () => listing), done('listed the project')] })),
    { match: rootMarker, turns: [delegate, done(`all ${shape.agents} children done`)] },
  ]
  return startFakeOpenAI({ route: openaiConversations(scripts) })
}

/** Saves the provider's base URL (the key comes from the server's environment) and starts the job, as the UI would. */
async function startLoadJob(arbor: ArborServer, baseUrl: string): Promise<string> {
  const client = await apiClient(arbor)
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
  await client.ask('setProviderConfig', { provider: 'openai', base_url: baseUrl, model: job.model, light_model: null })
  const { job_id: jobId } = await client.ask<{ job_id: string }>('startJob', { kind: 'agent', job })
  client.close()
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

interface PageElement {
  getAttribute(name: string): string | null
  querySelector(selector: string): PageElement | null
}
interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** In the page: edges whose drawn path does not start on its source node or end on its target node. */
function strayEdges(): string[] {
  const page = globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<PageElement> } }
  const boxes = new Map<string, Box>()
  for (const node of Array.from(page.document.querySelectorAll('.react-flow__node'))) {
    const [x = 0, y = 0] = (/translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec(node.getAttribute('style') ?? '') ?? []).slice(1).map(Number)
    boxes.set(node.getAttribute('data-id') ?? '', { x, y, width: 256, height: 138 })
  }
  const distance = (box: Box | undefined, x: number, y: number): number =>
    box ? Math.hypot(Math.max(box.x - x, 0, x - box.x - box.width), Math.max(box.y - y, 0, y - box.y - box.height)) : Infinity
  const stray: string[] = []
  for (const edge of Array.from(page.document.querySelectorAll('.react-flow__edge'))) {
    const [, source = '', target = ''] = /Edge from (\S+) to (\S+)/.exec(edge.getAttribute('aria-label') ?? '') ?? []
    const numbers = (edge.querySelector('path')?.getAttribute('d') ?? '').match(/-?[\d.]+/g)?.map(Number) ?? []
    const [startX = NaN, startY = NaN] = numbers
    const [endX = NaN, endY = NaN] = numbers.slice(-2)
    if (distance(boxes.get(source), startX, startY) > 12 || distance(boxes.get(target), endX, endY) > 12) {
      stray.push(`${source}->${target}: ${startX},${startY} -> ${endX},${endY}`)
    }
  }
  return stray
}

const artifacts = path.resolve(import.meta.dirname, 'artifacts')

/**
 * With LOAD_PROFILE=cpu, Chromium's CPU profile of the page (artifacts/load.cpuprofile); with
 * LOAD_PROFILE=trace, its performance trace (artifacts/load-trace.json, for the DevTools
 * Performance panel): from just after navigation to the job's end.
 */
async function startProfiling(page: Page): Promise<(() => Promise<void>) | undefined> {
  const kind = process.env.LOAD_PROFILE
  if (!kind) return undefined
  mkdirSync(artifacts, { recursive: true })
  if (kind === 'trace') {
    const browser = page.context().browser()!
    const file = path.join(artifacts, 'load-trace.json')
    await browser.startTracing(page, {
      path: file,
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute'],
    })
    return async () => {
      await browser.stopTracing()
      console.log(`performance trace written to ${file}; ${summariseTrace(file)}`)
    }
  }
  const session: CDPSession = await page.context().newCDPSession(page)
  await session.send('Profiler.enable')
  await session.send('Profiler.setSamplingInterval', { interval: 500 })
  await session.send('Profiler.start')
  return async () => {
    const { profile } = await session.send('Profiler.stop')
    const file = path.join(artifacts, 'load.cpuprofile')
    writeFileSync(file, JSON.stringify(profile))
    console.log(`CPU profile written to ${file}`)
  }
}

/**
 * The page's longest main-thread tasks by wall time, each with the CPU time the thread actually
 * got for it (a trace records both): with 50 agent processes on two cores, waiting for a core is
 * most of a long task.
 */
function summariseTrace(file: string): string {
  type TraceEvent = {
    name: string
    ph: string
    pid: number
    tid: number
    ts: number
    dur?: number
    tdur?: number
    args?: { name?: string }
  }
  const events = (JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] }).traceEvents
  const threads = new Set(
    events
      .filter((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  )
  const tasks = events.filter((event) => event.name === 'RunTask' && event.ph === 'X' && threads.has(`${event.pid}:${event.tid}`))
  const ms = (micros = 0): string => (micros / 1000).toFixed(0)
  const byWall = [...tasks].sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0)).slice(0, 5)
  const mostCpu = Math.max(0, ...tasks.map((task) => task.tdur ?? 0))
  return (
    `longest tasks (wall ms / CPU ms): ${byWall.map((task) => `${ms(task.dur)}/${ms(task.tdur)}`).join(', ')}; ` +
    `most CPU in one task ${ms(mostCpu)} ms; tasks over 50 ms of CPU: ${tasks.filter((task) => (task.tdur ?? 0) > 50_000).length}`
  )
}

const percentile = (sorted: number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN

test('the graph stays live while 200 agents write about 100,000 events, and ends with all 201 nodes completed', async ({ page }) => {
  test.setTimeout(360_000)
  model = await loadModel()
  server = await startArborServer({ env: { OPENAI_API_KEY: 'sk-e2e-load-0000' } })
  const started = Date.now()
  const jobId = await startLoadJob(server, `${model.url}/v1`)
  await page.addInitScript(recordFrames)
  const arbor = new ArborPage(page)
  await page.goto(`${server.url}&job=${encodeURIComponent(jobId)}`, { waitUntil: 'commit' })
  const stopProfiling = await startProfiling(page)
  await expect(arbor.root).toBeVisible()
  // 200 children draw as one group node (a grouped fan-out) until it is expanded; it stays expanded.
  await page.getByTestId('fan-out-node').click({ timeout: 60_000 })
  await expect(arbor.nodesWithStatus('running').nth(10)).toBeVisible({ timeout: 60_000 })
  await arbor.screenshot('load-running')

  await expect(arbor.jobStatus).toContainText('completed', { timeout: 300_000 })
  const durationMs = Date.now() - started
  const { frameTimes, longTasks, completedAt } = await page.evaluate(() => {
    const record = globalThis as unknown as PageGlobals
    record.stopFrames = true
    return { frameTimes: record.frameTimes.slice(1), longTasks: record.longTasks, completedAt: performance.now() }
  })
  await stopProfiling?.()
  await expect(arbor.nodes).toHaveCount(shape.agents + 1)
  await expect(arbor.nodesWithStatus('completed')).toHaveCount(shape.agents + 1)
  await expect(arbor.children).toHaveCount(shape.agents)
  await arbor.screenshot('load-completed')
  // Every edge starts at its parent and ends at its child, none routed to a far corner.
  expect(await page.evaluate(strayEdges)).toEqual([])

  const sorted = [...frameTimes].sort((a, b) => a - b)
  const requests = model.requests.length
  console.log(
    `load e2e: ${shape.agents} agents at concurrency ${shape.concurrency}, ${requests} model requests, job done in ${(durationMs / 1000).toFixed(1)} s; ` +
      `${frameTimes.length} frames: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, ` +
      `max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms; ${longTasks.length} long tasks, longest ${Math.max(0, ...longTasks.map((task) => task.duration)).toFixed(0)} ms`,
  )
  // When the worst ones happened, in the page's clock (0: the page opened; the job was seen completed at the end).
  const worst = [...longTasks].sort((a, b) => b.duration - a.duration).slice(0, 5)
  console.log(
    `longest tasks (start s: duration ms), completion seen at ${(completedAt / 1000).toFixed(1)} s: ${worst.map((task) => `${(task.start / 1000).toFixed(1)}: ${task.duration.toFixed(0)}`).join(', ')}`,
  )
  expect(requests).toBe(2 + shape.agents * (shape.turns + 1))
})
