/**
 * Inspector benchmark: the built renderer (out/renderer) in headless Chromium, driven by a fake
 * `window.arbor` that serves one job whose root has 100,000 events and whose one child has 100
 * (e2e/support/long-trace.ts), paged by getEvents as the real API pages them. Measures
 * (1) clicking the agent's node until the first frame showing its rows has painted, with the
 * 100-event child opened the same way as the baseline; (2) until every page has arrived, and the
 * longest frame meanwhile; (3) frames per second while the list scrolls a screen per frame for
 * a few seconds, against the page's idle frame rate in the same run. Rendering 100,000 rows
 * without the virtualizer is no baseline (Chromium takes tens of seconds), so the open and fps
 * goals are absolute: ≤ 300 ms and ≥ 30 fps (issue 9).
 * Needs the build (npm run build). Run: node --import tsx bench/inspector.ts [events]
 */
import type { AddressInfo } from 'node:net'
import { chromium, type Page } from 'playwright-core'
import { chromiumLaunchOptions } from '../e2e/support/chromium'
import { longTrace } from '../e2e/support/long-trace'
import { requireRendererAndChromium, serveRenderer } from './renderer-server'
import { record } from './results'

const bigEvents = Number(process.argv[2] ?? 100_000)
const smallEvents = 100
const repeats = 3
const viewport = { width: 1440, height: 900 }
const scrollMs = 3000
/** A fast flick of the wheel or trackpad: 120 px a frame, 7,200 px a second at 60 fps. */
const wheelStepPx = 120
requireRendererAndChromium('bench/inspector.ts')

const big = longTrace(bigEvents, 'job_inspect', 'agent_big')
const small = longTrace(smallEvents, 'job_inspect', 'agent_small')
/** Each agent's events as the store returns them (the trace's lines but the header and job-level events). */
const agentEvents = (jsonl: string): string =>
  `[${jsonl
    .trimEnd()
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('"agent_id":null'))
    .join(',')}]`
const traces: Record<string, string> = {
  '/bench/agent_big.json': agentEvents(big.jsonl),
  '/bench/agent_small.json': agentEvents(small.jsonl),
}

interface OpenResult {
  /** Click until the first frame with the agent's rows has painted. */
  firstMs: number
  /** Click until every page has arrived and is drawn. */
  loadedMs: number
  /** The longest gap between two frames until then. */
  worstFrameMs: number
  rows: number
}

interface FpsResult {
  fps: number
  worstFrameMs: number
  /** Rows in the DOM at the end: only a screenful and the overscan. */
  rowsInDom: number
}

interface InspectorBenchPage {
  ready: Promise<void>
  open(agentId: string, total: number): Promise<OpenResult>
  /** Scrolls down `step` px a frame, or a screen a frame (dragging the scrollbar) when null. */
  scrollFps(agentId: string, ms: number, step: number | null): Promise<FpsResult>
  idleFps(ms: number): Promise<number>
}

/**
 * Runs in Chromium before the renderer (page.addInitScript), serialised with Function#toString,
 * so it uses nothing from module scope: a fake `window.arbor` answering from the two agents'
 * events (fetched once, before anything is timed), and `window.__inspectorBench`.
 */
function installInspectorPage(): void {
  type Event = { seq: number; agent_id: string }
  type Globals = {
    arbor?: unknown
    __inspectorBench?: InspectorBenchPage
    fetch(url: string): Promise<{ json(): Promise<unknown> }>
    structuredClone<T>(value: T): T
    requestAnimationFrame(callback: (time: number) => void): number
    performance: { now(): number }
    document: {
      querySelector(
        selector: string,
      ): { click(): void; scrollTop: number; clientHeight: number; getAttribute(name: string): string | null } | null
      querySelectorAll(selector: string): { length: number }
    }
  }
  const page = globalThis as unknown as Globals
  const now = () => page.performance.now()
  const frame = (): Promise<number> => new Promise((done) => page.requestAnimationFrame(done))
  const eventsOf: Record<string, Event[]> = {}
  const ready = Promise.all(
    ['agent_big', 'agent_small'].map(async (id) => {
      eventsOf[id] = (await (await page.fetch(`/bench/${id}.json`)).json()) as Event[]
    }),
  ).then(() => undefined)

  const iso = new Date('2026-01-01T10:00:00.000Z').toISOString()
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }
  const settings = {
    provider: 'scripted',
    model: 'scripted',
    light_model: null,
    profile: 'general',
    max_depth: 1,
    max_concurrent_children: 3,
    job_token_budget: null,
    job_cost_budget: null,
  }
  const job = {
    id: 'job_inspect',
    project: '/projects/bench',
    task: 'inspector bench',
    settings,
    status: 'completed',
    created_at: iso,
    ended_at: iso,
    auto_approve: false,
    spawn_paused: false,
    usage,
    cost_usd: null,
  }
  const agent = (id: string, parent: string | null, label: string) => ({
    id,
    job_id: job.id,
    parent_id: parent,
    depth: parent ? 1 : 0,
    label,
    profile: 'general',
    model: 'scripted',
    task: `${label}: walk every file`,
    status: 'completed',
    terminal_reason: 'completed',
    current_tool: null,
    steps: 1,
    max_steps: null,
    total_token_budget: null,
    usage,
    cost_usd: null,
    created_at: iso,
    started_at: iso,
    ended_at: iso,
    last_event_at: iso,
  })
  const agents = [agent('agent_big', null, 'root'), agent('agent_small', 'agent_big', 'child')]
  page.arbor = {
    getState: async () => ({ project: { path: '/projects/bench', name: 'bench' }, all_paused: false }),
    openProject: async () => ({ project: { path: '/projects/bench', name: 'bench' } }),
    listJobs: async () => ({ jobs: [job] }),
    getTree: async () => page.structuredClone({ job, agents, last_seq: 1_000_000, approvals: [] }),
    // As the store pages them: seq > after_seq, oldest first; structuredClone stands in for IPC's copy.
    getEvents: async ({ agent_id, after_seq = 0, limit = 1000 }: { agent_id: string; after_seq?: number; limit?: number }) => {
      const all = eventsOf[agent_id] ?? []
      let low = 0
      let high = all.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (all[middle]!.seq <= after_seq) low = middle + 1
        else high = middle
      }
      return { events: page.structuredClone(all.slice(low, low + limit)) }
    },
    setSpawnPaused: async ({ paused }: { paused: boolean }) => ({ paused }),
    subscribe: () => () => undefined,
  }

  const inspector = (id: string) => `[data-testid="inspector"][data-agent-id="${id}"]`
  page.__inspectorBench = {
    ready,
    async open(agentId, total) {
      page.document.querySelector(`${inspector(agentId)} [aria-label="Close inspector"]`)?.click()
      await frame()
      await frame()
      const node = page.document.querySelector(`[data-testid="agent-node"][data-agent-id="${agentId}"]`)
      if (!node) throw new Error(`no node for ${agentId}`)
      const started = now()
      node.click()
      let firstMs = -1
      let last = started
      let worst = 0
      let seenRows = false
      for (;;) {
        const at = await frame()
        worst = Math.max(worst, at - last)
        last = at
        // Rows seen in frame k are on screen once frame k+1 starts.
        if (seenRows && firstMs < 0) firstMs = at - started
        seenRows ||= page.document.querySelectorAll(`${inspector(agentId)} [data-testid="inspector-event"]`).length > 0
        const list = page.document.querySelector(`${inspector(agentId)} [data-testid="inspector-events"]`)
        if (firstMs >= 0 && list?.getAttribute('data-count') === String(total)) {
          await frame()
          return { firstMs, loadedMs: now() - started, worstFrameMs: worst, rows: total }
        }
        if (at - started > 60_000) throw new Error(`${agentId}: not loaded within 60 s`)
      }
    },
    async scrollFps(agentId, ms, step) {
      const list = page.document.querySelector(`${inspector(agentId)} [data-testid="inspector-events"]`)
      if (!list) throw new Error(`no inspector for ${agentId}`)
      list.scrollTop = 0
      await frame()
      const started = await frame()
      let frames = 0
      let last = started
      let worst = 0
      for (;;) {
        list.scrollTop += step ?? list.clientHeight
        const at = await frame()
        frames += 1
        worst = Math.max(worst, at - last)
        last = at
        if (at - started >= ms) break
      }
      const rowsInDom = page.document.querySelectorAll(`${inspector(agentId)} [data-testid="inspector-event"]`).length
      return { fps: (frames * 1000) / (last - started), worstFrameMs: worst, rowsInDom }
    },
    async idleFps(ms) {
      const started = await frame()
      let frames = 0
      let last = started
      while (last - started < ms) {
        last = await frame()
        frames += 1
      }
      return (frames * 1000) / (last - started)
    },
  }
}

type Globals = { __inspectorBench: InspectorBenchPage }
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function measure(page: Page) {
  const open = (agentId: string, total: number) =>
    page.evaluate(([id, count]) => (globalThis as unknown as Globals).__inspectorBench.open(id, count), [agentId, total] as const)
  const bigOpens: OpenResult[] = []
  const smallOpens: OpenResult[] = []
  for (let index = 0; index < repeats; index++) {
    smallOpens.push(await open(small.agentId, small.agentSeqs.length))
    bigOpens.push(await open(big.agentId, big.agentSeqs.length))
  }
  const idle = await page.evaluate((ms) => (globalThis as unknown as Globals).__inspectorBench.idleFps(ms), scrollMs)
  const scroll = (step: number | null) =>
    page.evaluate(([id, ms, px]) => (globalThis as unknown as Globals).__inspectorBench.scrollFps(id, ms, px), [
      big.agentId,
      scrollMs,
      step,
    ] as const)
  return { bigOpens, smallOpens, idle, wheel: await scroll(wheelStepPx), drag: await scroll(null) }
}

const server = await serveRenderer(traces)
const browser = await chromium.launch({ ...chromiumLaunchOptions, headless: true })
try {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  // tsx keeps function names with a __name helper the page does not have.
  await page.addInitScript({ content: `var __name = (fn) => fn;\n(${installInspectorPage.toString()})()` })
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`)
  await page.evaluate(() => (globalThis as unknown as Globals).__inspectorBench.ready)
  await page.locator(`[data-testid="agent-node"][data-agent-id="${big.agentId}"]`).waitFor({ timeout: 15_000 })
  const { bigOpens, smallOpens, idle, wheel, drag } = await measure(page)
  if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`)
  const shots = process.env.ARBOR_BENCH_SCREENSHOTS
  if (shots) await page.screenshot({ path: `${shots}/inspector-${bigEvents}.png` })
  await context.close()

  console.log(
    `inspector bench: built renderer in Chromium ${browser.version()} (headless, --disable-gpu), ${viewport.width}x${viewport.height}; ` +
      `${bigEvents.toLocaleString('en-US')} events against ${smallEvents}; opens: median of ${repeats}`,
  )
  const label = bigEvents >= 1000 ? `${Math.round(bigEvents / 1000)}k` : String(bigEvents)
  record({
    name: `inspector.open_${label}.first_rows`,
    value: median(bigOpens.map((result) => result.firstMs)),
    unit: 'ms',
    baseline: median(smallOpens.map((result) => result.firstMs)),
    goal: { atMost: 300, on: 'value' },
  })
  record({
    name: `inspector.open_${label}.all_loaded`,
    value: median(bigOpens.map((result) => result.loadedMs)),
    unit: 'ms',
    baseline: median(smallOpens.map((result) => result.loadedMs)),
  })
  record({
    name: `inspector.open_${label}.longest_frame`,
    value: median(bigOpens.map((result) => result.worstFrameMs)),
    unit: 'ms',
    baseline: median(smallOpens.map((result) => result.worstFrameMs)),
  })
  // Baseline: the same page's frame rate with nothing to do.
  record({ name: `inspector.scroll_${label}.fps`, value: wheel.fps, unit: 'fps', baseline: idle, goal: { atLeast: 30, on: 'value' } })
  record({ name: `inspector.scroll_${label}.longest_frame`, value: wheel.worstFrameMs, unit: 'ms', baseline: null })
  record({ name: `inspector.scroll_${label}.drag_fps`, value: drag.fps, unit: 'fps', baseline: idle })
  record({ name: `inspector.scroll_${label}.drag_longest_frame`, value: drag.worstFrameMs, unit: 'ms', baseline: null })
  console.log(
    `scroll: ${wheelStepPx} px a frame; drag: a screen a frame. Rows in the DOM: ${drag.rowsInDom} of ${big.agentSeqs.length.toLocaleString('en-US')}`,
  )
} catch (error) {
  console.error(`inspector bench failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await browser.close()
  await new Promise((done) => server.close(done))
}
