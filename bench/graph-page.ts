/**
 * The in-page half of bench/graph.ts. `installBenchPage` runs in Chromium before the renderer's
 * own scripts (page.addInitScript): it puts a fake `window.arbor` in place, answering from a
 * generated job of `agents` agents, and adds `window.__pushEvents` (events to every subscriber,
 * as the engine's commit notifications would) and `window.__bench` (the measurements, timed with
 * performance.now() inside requestAnimationFrame callbacks, so no round trip to Node is counted).
 *
 * It is serialised with Function#toString, so it must not use anything from module scope.
 * Only the browser globals it needs are typed here (bench/ is checked without the DOM lib).
 */

export interface PageConfig {
  /** Agents in the benchmark job, the root included. */
  agents: number
  /**
   * 'tree': breadth first, each parent with at most `maxChildren` children (the UI groups a bigger
   * fan-out into one node; kept below that, every agent is drawn). 'fan-out': every agent a child
   * of the root, which the UI shows as one group node.
   */
  shape: 'tree' | 'fan-out'
  maxChildren: number
  benchJobId: string
  idleJobId: string
}

/** Times from the click (select) or the push (spawn). */
export interface SettleResult {
  /** Until the first frame showing the job's nodes has been painted. */
  firstMs: number
  /** Until the node count and the viewport transform stopped changing (and that frame painted). */
  settledMs: number
  /**
   * Nodes drawn once settled: `agent-node` elements in the DOM (xyflow may render only the visible
   * ones), plus the nodes painted on the overview canvas (a big tree zoomed out).
   */
  nodes: number
  /** The most nodes drawn in any frame on the way. */
  peakNodes: number
  /** The longest gap between two frames on the way (the main thread was busy that long). */
  worstFrameMs: number
  timedOut: boolean
}

export interface UpdateResult {
  events: number
  /** Script time of the frame that applied the batch (event batcher, store reducers, React render). */
  frameScriptMs: number
  /** From the push until the frame that applied it has painted. */
  paintedMs: number
  /** From the push until two frames have painted after it. */
  twoFramesMs: number
}

export interface FpsResult {
  fps: number
  worstFrameMs: number
  /** Frames longer than 50 ms (three missed vsyncs or more). */
  longFrames: number
  events: number
}

/** A batch with one event of this type per agent; agent.start sets an ended agent running again. */
export type UpdateKind = 'tool.call' | 'tool.result' | 'agent.end' | 'agent.start'

export interface BenchPage {
  agentIds: string[]
  select(jobId: string, idPrefix: string): Promise<SettleResult>
  /** One new agent (agent.start under one of the newest agents) until the node count has settled again. */
  spawn(): Promise<SettleResult>
  update(kind: UpdateKind): Promise<UpdateResult>
  fps(durationMs: number, batchSize: number, everyMs: number): Promise<FpsResult>
  /**
   * The structured clone of the bench job's snapshot alone, the best of 3; of its first `agents`
   * agents when given (one getTree page, the copy a select now does per task).
   */
  snapshotCopyMs(agents?: number): number
}

interface PageElement {
  click(): void
  getAttribute(name: string): string | null
  style: { transform: string }
}

interface PageGlobals {
  arbor?: unknown
  __pushEvents?: (events: PageEvent[]) => void
  __bench?: BenchPage
  document: {
    querySelector(selector: string): PageElement | null
    querySelectorAll(selector: string): { length: number }
  }
  requestAnimationFrame(callback: (time: number) => void): number
  performance: { now(): number }
  setInterval(callback: () => void, ms: number): number
  setTimeout(callback: (value?: unknown) => void, ms: number): number
  clearInterval(id: number): void
  structuredClone<T>(value: T): T
}

interface PageEvent {
  type: string
  seq?: number
  ts?: string
  job_id?: string
  agent_id: string | null
  parent_id: string | null
  depth: number | null
  data: Record<string, unknown>
}

export function installBenchPage(config: PageConfig): void {
  const page = globalThis as unknown as PageGlobals
  const now = (): number => page.performance.now()
  const frame = (): Promise<number> => new Promise((resolve) => page.requestAnimationFrame(resolve))
  const startedAt = Date.now()
  const iso = (offsetMs: number): string => new Date(startedAt + offsetMs).toISOString()
  const usage = (input: number, output: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: Math.floor(input / 2),
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  })
  const settings = {
    provider: 'scripted',
    model: 'bench-model',
    light_model: 'bench-light',
    profile: 'general',
    max_depth: 3,
    max_concurrent_children: 64,
    job_token_budget: 50_000_000,
    job_cost_budget: 500,
  }
  const makeJob = (id: string, task: string, createdOffset: number) => ({
    id,
    project: '/projects/bench',
    task,
    settings,
    status: 'running',
    created_at: iso(createdOffset),
    ended_at: null,
    auto_approve: false,
    spawn_paused: false,
    usage: usage(0, 0),
    cost_usd: null,
  })
  // The idle job is the newest, so the UI opens it on load and the click on the bench job is a real switch.
  const jobs = {
    [config.benchJobId]: makeJob(config.benchJobId, `graph bench: ${config.agents} agents`, -60_000),
    [config.idleJobId]: makeJob(config.idleJobId, 'idle job', -1_000),
  }

  type Agent = Record<string, unknown> & { id: string; parent_id: string | null; depth: number }
  let created = 0
  const makeAgent = (jobId: string, id: string, parent: Agent | null, label: string): Agent => ({
    id,
    job_id: jobId,
    parent_id: parent?.id ?? null,
    depth: parent ? parent.depth + 1 : 0,
    label,
    profile: parent ? (parent.depth === 0 ? 'general' : 'explore') : 'general',
    model: parent && parent.depth > 0 ? 'bench-light' : 'bench-model',
    task: `${label}: look through the module and report what it exports`,
    status: 'running',
    terminal_reason: null,
    current_tool: null,
    steps: 3,
    max_steps: 40,
    total_token_budget: 400_000,
    usage: usage(12_000, 900),
    cost_usd: 0.02,
    created_at: iso(-50_000 + created),
    started_at: iso(-50_000 + created++),
    ended_at: null,
    // Recent, so no node is flagged as stalled during the run.
    last_event_at: iso(0),
  })

  const root = makeAgent(config.benchJobId, 'bench_root', null, 'root')
  const benchAgents: Agent[] = [root]
  // Breadth first, so parents come before their children (spawn order), as a real run creates them.
  const branching = config.shape === 'fan-out' ? Infinity : config.maxChildren
  for (let index = 1; index < config.agents; index++) {
    const parent = benchAgents[Math.floor((index - 1) / branching)]!
    benchAgents.push(makeAgent(config.benchJobId, `bench_${index}`, parent, `${parent === root ? 'child' : 'worker'} ${index}`))
  }
  // Spawns go under the newest agents, leaves: a parent that already has `maxChildren` would turn into a group.
  const spawnParents = benchAgents.slice(-8)
  const idleAgents: Agent[] = [makeAgent(config.idleJobId, 'idle_root', null, 'idle root')]
  const agentsOf: Record<string, Agent[]> = { [config.benchJobId]: benchAgents, [config.idleJobId]: idleAgents }

  let seq = (config.agents + 1) * 10
  const snapshotSeq = seq
  const listeners = new Set<(notification: { kind: 'events'; events: PageEvent[] }) => void>()
  type TreeInput = { job_id: string; limit?: number; page?: { snapshot: string; offset: number } }
  const treeSnapshots = new Map<string, { agents: Agent[]; limit: number }>()
  let snapshotCount = 0
  const notFound = (what: string) => Promise.reject(new Error(`${what} is not part of the graph bench`))

  page.arbor = {
    getState: async () => ({ project: { path: '/projects/bench', name: 'bench' }, all_paused: false }),
    openProject: async () => ({ project: { path: '/projects/bench', name: 'bench' } }),
    listJobs: async () => ({ jobs: page.structuredClone(Object.values(jobs)) }),
    startJob: () => notFound('startJob'),
    // structuredClone stands in for the copy Electron's IPC makes of every reply, on the renderer's
    // main thread in a task of its own once the reply arrives (not inside the click that asked).
    // Paged as the engine pages it (job-handlers.ts): the first call keeps the snapshot.
    getTree: async ({ job_id, limit, page: next }: TreeInput) => {
      const job = jobs[job_id]
      if (!job) return notFound(`job ${job_id}`)
      await new Promise((resolve) => page.setTimeout(resolve, 0))
      const id = next?.snapshot ?? `snapshot-${++snapshotCount}`
      const snapshot = next ? treeSnapshots.get(id) : { agents: [...agentsOf[job_id]!], limit: limit ?? Infinity }
      if (!snapshot) return notFound(`tree snapshot ${id}`)
      const offset = next?.offset ?? 0
      const end = offset + (limit ?? snapshot.limit)
      if (end < snapshot.agents.length) treeSnapshots.set(id, snapshot)
      else treeSnapshots.delete(id)
      const more = end < snapshot.agents.length ? { snapshot: id, offset: end } : null
      return page.structuredClone({ job, agents: snapshot.agents.slice(offset, end), last_seq: snapshotSeq, approvals: [], next: more })
    },
    getEvents: async () => ({ events: [] }),
    setSpawnPaused: async ({ paused }: { paused: boolean }) => ({ paused }),
    killAgent: async ({ agent_id }: { agent_id: string }) => ({ killed: [agent_id] }),
    cancelSpawn: async () => ({ cancelled: false }),
    setAutoApprove: async ({ value }: { value: boolean }) => ({ value }),
    decideApproval: async () => ({ decided: false }),
    exportJob: async () => ({ path: null, lines: 0 }),
    subscribe(listener: (notification: { kind: 'events'; events: PageEvent[] }) => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }

  /** Sends events as one commit notification; fills in seq, ts and job_id when missing. */
  const pushEvents = (events: PageEvent[]): void => {
    const ts = new Date().toISOString()
    const stamped = events.map((event) => ({ ...event, seq: ++seq, ts: event.ts ?? ts, job_id: event.job_id ?? config.benchJobId }))
    for (const listener of listeners) listener({ kind: 'events', events: stamped })
  }
  page.__pushEvents = pushEvents

  let callId = 0
  const eventFor = (type: string, agent: Agent): PageEvent => {
    const base = { type, agent_id: agent.id, parent_id: agent.parent_id, depth: agent.depth }
    switch (type) {
      case 'tool.call':
        return { ...base, data: { call_id: `call_${++callId}`, name: 'read_file', arguments: { path: 'src/index.ts' } } }
      case 'tool.result':
        return {
          ...base,
          data: { call_id: `call_${callId}`, name: 'read_file', ok: true, output: 'export {}', truncated: false, duration_ms: 3 },
        }
      case 'llm.call':
        return {
          ...base,
          data: {
            provider: 'scripted',
            model: 'bench-model',
            usage: usage(1800, 120),
            cost_usd: 0.001,
            duration_ms: 800,
            finish_reason: 'tool_calls',
          },
        }
      case 'agent.start':
        return {
          ...base,
          data: {
            profile: agent.profile,
            model: agent.model,
            label: agent.label,
            task: agent.task,
            tools: ['read_file'],
            max_steps: 40,
            total_token_budget: 400_000,
          },
        }
      default:
        return {
          ...base,
          data: {
            status: 'completed',
            terminal_reason: 'completed',
            result: { summary: 'done' },
            usage: usage(14_000, 1_100),
            cost_usd: 0.025,
            steps: 5,
            tool_usage: { read_file: 2 },
            duration_ms: 50_000,
          },
        }
    }
  }

  const overview = (): PageElement | null => page.document.querySelector('[data-testid="graph-overview"]')
  const nodeCount = (): number =>
    page.document.querySelectorAll('[data-testid="agent-node"]').length + Number(overview()?.getAttribute('data-drawn') ?? 0)

  interface Sample {
    at: number
    key: string
    ready: boolean
    count: number
  }
  const sample = (at: number, ready: (count: number) => boolean, withViewport: boolean): Sample => {
    const count = nodeCount()
    const isReady = ready(count)
    const transform = withViewport ? (page.document.querySelector('.react-flow__viewport')?.style.transform ?? '') : ''
    return { at, key: `${isReady}|${count}|${transform}`, ready: isReady, count }
  }
  /**
   * One sample per frame. The graph counts as settled once it is ready and the node count (and,
   * with `withViewport`, the viewport transform: the fit-view animation) have not changed for
   * 2 frames and for 300 ms. A state seen in frame k is on screen once frame k+1 starts, so
   * times are taken there.
   */
  const settle = async (
    started: number,
    ready: (count: number) => boolean,
    withViewport: boolean,
    before?: Sample,
  ): Promise<SettleResult> => {
    const samples: Sample[] = before ? [before] : []
    let peak = 0
    let worst = 0
    let last = started
    for (;;) {
      await frame()
      const current = sample(now(), ready, withViewport)
      samples.push(current)
      peak = Math.max(peak, current.count)
      worst = Math.max(worst, current.at - last)
      last = current.at
      let changed = samples.length - 1
      while (changed > 0 && samples[changed - 1]!.key === current.key) changed--
      const stableFrames = samples.length - 1 - changed
      if (current.ready && stableFrames >= 2 && current.at - samples[changed]!.at >= 300) {
        const firstReady = samples.findIndex((item) => item.ready)
        return {
          firstMs: samples[firstReady + 1]!.at - started,
          settledMs: samples[changed + 1]!.at - started,
          nodes: current.count,
          peakNodes: peak,
          worstFrameMs: worst,
          timedOut: false,
        }
      }
      if (current.at - started > 20_000) {
        return { firstMs: Number.NaN, settledMs: Number.NaN, nodes: current.count, peakNodes: peak, worstFrameMs: worst, timedOut: true }
      }
    }
  }
  let spawned = 0

  page.__bench = {
    agentIds: benchAgents.map((agent) => agent.id),

    async select(jobId, idPrefix) {
      const item = page.document.querySelector(`[data-testid="job-item"][data-job-id="${jobId}"]`)
      if (!item) throw new Error(`no job-item for ${jobId}`)
      const foreign = `[data-testid="agent-node"]:not([data-agent-id^="${idPrefix}"])`
      const started = now()
      item.click()
      const ownOverview = (): boolean => (overview()?.getAttribute('data-job-id') ?? jobId) === jobId
      return settle(started, (count) => count > 0 && page.document.querySelector(foreign) === null && ownOverview(), true)
    },

    async spawn() {
      const parent = spawnParents[spawned % spawnParents.length]!
      const agent = makeAgent(config.benchJobId, `bench_spawn_${spawned++}`, parent, `spawned ${spawned}`)
      const event: PageEvent = {
        type: 'agent.start',
        agent_id: agent.id,
        parent_id: parent.id,
        depth: agent.depth,
        data: {
          profile: 'explore',
          model: 'bench-light',
          label: agent.label,
          task: agent.task,
          tools: ['read_file'],
          max_steps: 40,
          total_token_budget: 400_000,
        },
      }
      const before = sample(now(), () => true, false)
      const started = now()
      pushEvents([event])
      // The node count only: a spawn that grows the tree also starts a 200 ms fit-view animation.
      return settle(started, () => true, false, before)
    },

    async update(kind) {
      const events = benchAgents.map((agent) => eventFor(kind, agent))
      const started = now()
      pushEvents(events)
      // The renderer's event batcher asked for this frame first, so this callback runs after
      // the batch was applied and React rendered it.
      const frameStart = await frame()
      const applied = now()
      await frame()
      const painted = now()
      await frame()
      const twoFrames = now()
      return { events: events.length, frameScriptMs: applied - frameStart, paintedMs: painted - started, twoFramesMs: twoFrames - started }
    },

    snapshotCopyMs(agents) {
      const copied = benchAgents.slice(0, agents)
      let best = Infinity
      for (let run = 0; run < 3; run++) {
        const started = now()
        page.structuredClone({ job: jobs[config.benchJobId], agents: copied, last_seq: snapshotSeq, approvals: [], next: null })
        best = Math.min(best, now() - started)
      }
      return best
    },

    async fps(durationMs, batchSize, everyMs) {
      const kinds = ['llm.call', 'tool.call', 'tool.result']
      let cursor = 0
      let sent = 0
      const batch = (): void => {
        const events: PageEvent[] = []
        for (let index = 0; index < batchSize; index++, cursor++) {
          events.push(eventFor(kinds[Math.floor(cursor / benchAgents.length) % kinds.length]!, benchAgents[cursor % benchAgents.length]!))
        }
        sent += events.length
        pushEvents(events)
      }
      let last = await frame()
      const started = last
      batch()
      const timer = page.setInterval(batch, everyMs)
      let frames = 0
      let worst = 0
      let long = 0
      while (last - started < durationMs) {
        const at = await frame()
        frames++
        worst = Math.max(worst, at - last)
        if (at - last > 50) long++
        last = at
      }
      page.clearInterval(timer)
      return { fps: (frames / (last - started)) * 1000, worstFrameMs: worst, longFrames: long, events: sent }
    },
  }
}
