/**
 * Graph benchmark: the built renderer (out/renderer) in Chromium, driven by a fake `window.arbor`
 * that serves a generated job (bench/graph-page.ts), at 20 agents (the baseline), 200, 2,000 and
 * 10,000, each parent with at most as many children as the UI draws one by one, so every agent
 * is a node. Measures (1) selecting the job until the graph has settled, (2) one batch that
 * changes every agent until two frames have painted, (3) frames per second while 200 events
 * arrive every 100 ms, (4) one agent spawning until the graph has settled again; each as a ratio
 * to the 20-agent run of the same invocation; and the structured clone of the job's snapshot
 * alone (what IPC would cost the renderer's main thread in one task), whole and of one getTree
 * page (what it costs per task, as the renderer reads a tree). Then a root with 500 children (a
 * grouped fan-out): selecting it until settled.
 * Needs the build (npm run build). Run: node --import tsx bench/graph.ts [agents]
 */
import type { AddressInfo } from 'node:net'
import { chromium, type Browser, type Page } from 'playwright-core'
import { chromiumLaunchOptions } from '../e2e/support/chromium'
import {
  installBenchPage,
  type BenchPage,
  type FpsResult,
  type PageConfig,
  type SettleResult,
  type UpdateKind,
  type UpdateResult,
} from './graph-page'
import { requireRendererAndChromium, serveRenderer } from './renderer-server'
import { record } from './results'
import { fanOutThreshold } from '../src-renderer/src/graph/fan-out'
import { treePageSize } from '../src-renderer/src/store/tree-state'

const largest = Number(process.argv[2] ?? 10_000)
const sizes = [...new Set([20, 200, 2000, largest])].sort((a, b) => a - b)
const fanOutChildren = 500
/** Goals of issue 9, on the value: select → settled, and the longest frame on the way. */
const selectGoalMs: Record<number, number> = { 2000: 500, 10_000: 2000 }
const frameGoalMs = 100
const repeats = 3
const viewport = { width: 1440, height: 900 }
const fpsWindow = { durationMs: 3000, batchSize: 200, everyMs: 100 }
requireRendererAndChromium('bench/graph.ts')

interface SizeResult {
  agents: number
  select: SettleResult
  spawn: SettleResult
  toolCall: UpdateResult
  agentEnd: UpdateResult
  fps: FpsResult
  copyMs: number
  pageCopyMs: number
}

type BenchGlobals = { __bench: BenchPage }
const bench = (page: Page) => ({
  spawn: () => page.evaluate(() => (globalThis as unknown as BenchGlobals).__bench.spawn()),
  select: (jobId: string, prefix: string) =>
    page.evaluate(([id, idPrefix]) => (globalThis as unknown as BenchGlobals).__bench.select(id, idPrefix), [jobId, prefix] as const),
  update: (kind: UpdateKind) => page.evaluate((type) => (globalThis as unknown as BenchGlobals).__bench.update(type), kind),
  copyMs: (agents?: number) => page.evaluate((count) => (globalThis as unknown as BenchGlobals).__bench.snapshotCopyMs(count), agents),
  fps: () =>
    page.evaluate(
      ({ durationMs, batchSize, everyMs }) => (globalThis as unknown as BenchGlobals).__bench.fps(durationMs, batchSize, everyMs),
      fpsWindow,
    ),
})

const median = <T>(values: T[], by: (value: T) => number): T => [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!

/** Opens the renderer on a generated job and runs `body` on it; page errors fail the run. */
async function withBenchPage<T>(
  browser: Browser,
  url: string,
  config: PageConfig,
  body: (run: ReturnType<typeof bench>, page: Page) => Promise<T>,
): Promise<T> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    // tsx keeps function names with a __name helper the page does not have.
    await page.addInitScript({ content: `var __name = (fn) => fn;\n(${installBenchPage.toString()})(${JSON.stringify(config)})` })
    await page.goto(url)
    // The UI opens the newest job (the idle one) by itself.
    await page.locator('[data-testid="agent-node"][data-agent-id="idle_root"]').waitFor({ timeout: 15_000 })
    const result = await body(bench(page), page)
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`)
    return result
  } finally {
    await context.close()
  }
}

/** Selects the job `repeats` times (the idle one in between), the median; keeps a screenshot when asked. */
async function selectRepeatedly(run: ReturnType<typeof bench>, page: Page, config: PageConfig, name: string): Promise<SettleResult> {
  const selects: SettleResult[] = []
  for (let index = 0; index < repeats; index++) {
    if (index > 0) await run.select(config.idleJobId, 'idle_')
    selects.push(await run.select(config.benchJobId, 'bench_'))
  }
  if (selects.some((result) => result.timedOut)) throw new Error(`the ${name} graph did not settle within 20 s`)
  // ARBOR_BENCH_SCREENSHOTS=DIR keeps a picture of each settled graph, to look at.
  const shots = process.env.ARBOR_BENCH_SCREENSHOTS
  if (shots) await page.screenshot({ path: `${shots}/graph-${name}.png` })
  return median(selects, (result) => result.settledMs)
}

const pageConfig = (agents: number, shape: PageConfig['shape']): PageConfig => ({
  agents,
  shape,
  maxChildren: fanOutThreshold,
  benchJobId: 'job_bench',
  idleJobId: 'job_idle',
})

function measure(browser: Browser, url: string, agents: number): Promise<SizeResult> {
  const config = pageConfig(agents, 'tree')
  return withBenchPage(browser, url, config, async (run, page) => {
    const select = await selectRepeatedly(run, page, config, String(agents))
    const copyMs = await run.copyMs()
    const pageCopyMs = await run.copyMs(treePageSize)
    const toolCalls: UpdateResult[] = []
    for (let index = 0; index < repeats; index++) {
      toolCalls.push(await run.update('tool.call'))
      await run.update('tool.result')
    }
    const fps = await run.fps()
    const agentEnds: UpdateResult[] = []
    for (let index = 0; index < repeats; index++) {
      agentEnds.push(await run.update('agent.end'))
      if (index < repeats - 1) await run.update('agent.start')
    }
    const spawns: SettleResult[] = []
    for (let index = 0; index < repeats; index++) spawns.push(await run.spawn())
    if (spawns.some((result) => result.timedOut)) throw new Error(`the ${agents}-agent graph did not settle within 20 s of a spawn`)
    return {
      agents,
      select,
      toolCall: median(toolCalls, (result) => result.twoFramesMs),
      agentEnd: median(agentEnds, (result) => result.twoFramesMs),
      spawn: median(spawns, (result) => result.settledMs),
      fps,
      copyMs,
      pageCopyMs,
    }
  })
}

/** A root with 500 children, drawn as one group node: select until settled. */
function measureFanOut(browser: Browser, url: string): Promise<SettleResult> {
  const config = pageConfig(fanOutChildren + 1, 'fan-out')
  return withBenchPage(browser, url, config, async (run, page) => {
    const select = await selectRepeatedly(run, page, config, `fan-out-${fanOutChildren}`)
    const groups = await page.locator('[data-testid="fan-out-node"]').count()
    if (groups !== 1) throw new Error(`the ${fanOutChildren}-children fan-out drew ${groups} group nodes, not 1`)
    return select
  })
}

/** The figures with goals, in the shared format (bench/results.ts). */
function recordFigures(results: SizeResult[], fanOut: SettleResult): void {
  const base = results[0]!
  for (const result of results.slice(1)) {
    const goal = selectGoalMs[result.agents]
    record({
      name: `graph.select_settled.${result.agents}`,
      value: result.select.settledMs,
      unit: 'ms',
      baseline: base.select.settledMs,
      goal: goal ? { atMost: goal, on: 'value' } : null,
    })
    record({
      name: `graph.select_longest_frame.${result.agents}`,
      value: result.select.worstFrameMs,
      unit: 'ms',
      baseline: base.select.worstFrameMs,
      goal: goal ? { atMost: frameGoalMs, on: 'value' } : null,
    })
  }
  // Live: the goal is 1,000 events/s with 2,000 agents on screen; the window sends twice that.
  const live = results.find((result) => result.agents === 2000)
  if (live) {
    const rate = (fpsWindow.batchSize * 1000) / fpsWindow.everyMs
    record({
      name: `graph.live_fps.2000_agents.${rate}_events_per_s`,
      value: live.fps.fps,
      unit: 'fps',
      baseline: base.fps.fps,
      goal: { atLeast: 30, on: 'value' },
    })
    record({
      name: `graph.live_longest_frame.2000_agents.${rate}_events_per_s`,
      value: live.fps.worstFrameMs,
      unit: 'ms',
      baseline: base.fps.worstFrameMs,
      goal: { atMost: frameGoalMs, on: 'value' },
    })
  }
  for (const result of results.slice(1)) {
    record({ name: `graph.snapshot_copy.${result.agents}`, value: result.copyMs, unit: 'ms', baseline: base.copyMs })
    if (result.agents > treePageSize) {
      record({ name: `graph.snapshot_page_copy.${result.agents}`, value: result.pageCopyMs, unit: 'ms', baseline: base.copyMs })
    }
  }
  record({ name: `graph.fan_out_${fanOutChildren}.select_settled`, value: fanOut.settledMs, unit: 'ms', baseline: base.select.settledMs })
  record({
    name: `graph.fan_out_${fanOutChildren}.select_longest_frame`,
    value: fanOut.worstFrameMs,
    unit: 'ms',
    baseline: base.select.worstFrameMs,
    goal: { atMost: frameGoalMs, on: 'value' },
  })
}

function report(results: SizeResult[], browserVersion: string): void {
  const base = results[0]!
  const ms = (value: number, baseline: number) => `${value.toFixed(1).padStart(7)} ms ${(value / baseline).toFixed(2).padStart(6)}x`
  const fps = (value: number, baseline: number) => `${value.toFixed(1).padStart(7)} fps ${(value / baseline).toFixed(2).padStart(5)}x`
  const count = (...values: number[]) => values.join(', ').padStart(7)
  const rows: [string, (result: SizeResult) => string][] = [
    ['select job -> first nodes painted', (r) => ms(r.select.firstMs, base.select.firstMs)],
    ['select job -> graph settled', (r) => ms(r.select.settledMs, base.select.settledMs)],
    ['  longest frame', (r) => ms(r.select.worstFrameMs, base.select.worstFrameMs)],
    ['  nodes drawn: peak, settled', (r) => count(r.select.peakNodes, r.select.nodes)],
    ['  snapshot copy alone (IPC stand-in)', (r) => ms(r.copyMs, base.copyMs)],
    [`  one page of it (${treePageSize} agents)`, (r) => ms(r.pageCopyMs, base.copyMs)],
    ['tool.call per agent -> 2 frames', (r) => ms(r.toolCall.twoFramesMs, base.toolCall.twoFramesMs)],
    ['  rAF script of the applying frame', (r) => ms(r.toolCall.frameScriptMs, base.toolCall.frameScriptMs)],
    ['agent.end per agent -> 2 frames', (r) => ms(r.agentEnd.twoFramesMs, base.agentEnd.twoFramesMs)],
    ['  rAF script of the applying frame', (r) => ms(r.agentEnd.frameScriptMs, base.agentEnd.frameScriptMs)],
    ['spawn one agent -> node count settled', (r) => ms(r.spawn.settledMs, base.spawn.settledMs)],
    ['  longest frame', (r) => ms(r.spawn.worstFrameMs, base.spawn.worstFrameMs)],
    ['  nodes drawn: peak, settled', (r) => count(r.spawn.peakNodes, r.spawn.nodes)],
    [`fps, ${fpsWindow.batchSize} events / ${fpsWindow.everyMs} ms`, (r) => fps(r.fps.fps, base.fps.fps)],
    ['  longest frame', (r) => ms(r.fps.worstFrameMs, base.fps.worstFrameMs)],
    ['  frames over 50 ms', (r) => count(r.fps.longFrames)],
  ]
  console.log(
    `graph bench: built renderer in Chromium ${browserVersion} (headless, --disable-gpu), ${viewport.width}x${viewport.height}; ` +
      `select, updates and spawn: median of ${repeats}; ratios to the ${base.agents}-agent run`,
  )
  console.log('"graph settled": node count and viewport held still, so it includes the 200 ms fit-view animation')
  const width = 38
  console.log(`${''.padEnd(width)}${results.map((r) => `${r.agents} agents`.padStart(14).padEnd(25)).join('')}`)
  for (const [name, cell] of rows) console.log(`${name.padEnd(width)}${results.map((r) => cell(r).padEnd(25)).join('')}`)
}

const server = await serveRenderer()
let browser: Browser | undefined
try {
  browser = await chromium.launch({ ...chromiumLaunchOptions, headless: true })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`
  const results: SizeResult[] = []
  for (const agents of sizes) results.push(await measure(browser, url, agents))
  const fanOut = await measureFanOut(browser, url)
  report(results, browser.version())
  recordFigures(results, fanOut)
} catch (error) {
  console.error(`graph bench failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await browser?.close()
  await new Promise((done) => server.close(done))
}
