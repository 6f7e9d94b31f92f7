import { createReadStream, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { openDatabase } from '../store/database'
import { createEngine, type Engine } from '../engine'
import type { TraceEvent } from '../trace/events'
import { ForkProcessHost } from '../supervisor/fork-host'
import type { ProcessHost } from '../supervisor/process-host'
import { defaultSettings, type JobSettings, type ScriptPlan, type ScriptTurn } from '../trace/model'
import { addUsage, emptyUsage, type Usage } from '../trace/usage'

/**
 * The load job of load.test.ts and bench/load.ts: a root that delegates `agents` general
 * children in one turn, `concurrency` at a time, each child making `turns` scripted model calls of
 * `callsPerTurn` parallel `list_files` calls, then completing. No delays: as fast as it goes.
 * Each tool call is three events (tool.call, tool.result, the tool message) and each turn two
 * more (llm.call, the assistant message), so the default shape writes about 100,000 events.
 */
export interface LoadShape {
  agents: number
  concurrency: number
  turns: number
  callsPerTurn: number
}

export const defaultLoadShape: LoadShape = { agents: 200, concurrency: 50, turns: 10, callsPerTurn: 16 }

export const childLabel = (index: number): string => `load child ${String(index).padStart(3, '0')}`

export function loadJobSettings(shape: LoadShape): JobSettings {
  return defaultSettings({
    max_depth: 1,
    max_concurrent_children: shape.concurrency,
    // The runaway guards would refuse 200 spawns in one turn: off, as a user may turn them.
    max_spawns_per_turn: 0,
    max_spawns_per_minute: 0,
    script: loadScript(shape),
  })
}

function loadScript(shape: LoadShape): ScriptPlan {
  const labels = Array.from({ length: shape.agents }, (_, index) => childLabel(index))
  const listing: ScriptTurn = {
    tool_calls: Array.from({ length: shape.callsPerTurn }, () => ({ name: 'list_files', arguments: { path: '.' } })),
  }
  const child: ScriptTurn[] = [...Array.from({ length: shape.turns }, () => listing), completion('listed the project')]
  return {
    root: [
      {
        tool_calls: labels.map((description) => ({
          name: 'task',
          arguments: { description, subagent_type: 'general', prompt: `List the project (${description}).` },
        })),
      },
      completion(`all ${shape.agents} children done`),
    ],
    children: Object.fromEntries(labels.map((label) => [label, child])),
  }
}

const completion = (result: string): ScriptTurn => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })

/** One run of the load job, in a fresh project and database under `dir`. */
export interface LoadRun {
  jobId: string
  dbFile: string
  exportFile: string
  settings: JobSettings
  heard: HeardJob
  /** From startJob to the stored job.end. */
  durationMs: number
  /** The main process (engine, supervisor, store) over the run: resident memory peak and CPU time. */
  peakRssBytes: number
  mainCpuMs: number
  /** What the JSONL export returned (header included). */
  exportedLines: number
}

export interface LoadJobOptions {
  /** Called just before the job starts; what it returns, just after its job.end is stored (bench/main-thread.ts watches the loop between). */
  watch?: () => () => void
  /** The engine's writer thread entry (EngineOptions.writerWorker); without it the writer commits on this thread. */
  writerWorker?: string
}

/** Runs the load job in a new engine in `dir`, its agents started by `processHost` (default: bundledAgentHost, from source). */
export async function runLoadJob(
  dir: string,
  shape: LoadShape = defaultLoadShape,
  processHost?: ProcessHost,
  { watch, writerWorker }: LoadJobOptions = {},
): Promise<LoadRun> {
  const project = path.join(dir, 'project')
  mkdirSync(project, { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Load fixture\n')
  writeFileSync(path.join(project, 'index.js'), 'export const answer = 42\n')
  const dbFile = path.join(dir, 'arbor.db')
  const engine = createEngine({ dbFile, processHost: processHost ?? (await bundledAgentHost(dir)), projectDir: project, writerWorker })
  try {
    const settings = loadJobSettings(shape)
    let jobId: string | null = null
    const heard = hearJob(engine, () => jobId)
    const peakRss = sampleRss()
    const cpu = process.cpuUsage()
    const stopWatching = watch?.()
    const started = performance.now()
    jobId = engine.supervisor.startJob({ project, task: 'load', settings })
    await engine.waitForJob(jobId)
    const durationMs = performance.now() - started
    stopWatching?.()
    const { user, system } = process.cpuUsage(cpu)
    const peakRssBytes = peakRss()
    const exportFile = path.join(dir, 'trace.jsonl')
    const exportedLines = await engine.exportJsonl(jobId, exportFile)
    return { jobId, dbFile, exportFile, settings, heard, durationMs, peakRssBytes, mainCpuMs: (user + system) / 1000, exportedLines }
  } finally {
    await engine.close()
  }
}

/** Every tool call the script asks for: the root's `task` calls and completion, each child's listings and completion. */
export function scriptedToolCalls(script: ScriptPlan): number {
  const calls = (turns: ScriptTurn[]): number => turns.reduce((sum, turn) => sum + (turn.tool_calls?.length ?? 0), 0)
  return calls(script.root) + Object.values(script.children).reduce((sum, turns) => sum + calls(turns), 0)
}

/** What the engine's listeners heard of one job, counted as it streamed (nothing kept but counts and sums). */
export interface HeardJob {
  byType: Map<string, number>
  /** Sums of `llm.call` and of `agent.end` usage; `job.end`'s own. */
  llmUsage: Usage
  agentEndUsage: Usage
  jobEnd: TraceEvent | null
  /** Children's `agent.end` status/terminal reason, by agent id. */
  childEnds: Map<string, { status: string; terminal_reason: string }>
  /** `error` events' messages. */
  errors: string[]
}

export function hearJob(engine: Engine, jobId: () => string | null): HeardJob {
  const heard: HeardJob = {
    byType: new Map(),
    llmUsage: emptyUsage(),
    agentEndUsage: emptyUsage(),
    jobEnd: null,
    childEnds: new Map(),
    errors: [],
  }
  engine.subscribe((notification) => {
    if (notification.kind !== 'events') return
    for (const event of notification.events) {
      if (event.job_id !== jobId()) continue
      heard.byType.set(event.type, (heard.byType.get(event.type) ?? 0) + 1)
      if (event.type === 'llm.call') heard.llmUsage = addUsage(heard.llmUsage, event.data.usage as Usage)
      if (event.type === 'agent.end') heard.agentEndUsage = addUsage(heard.agentEndUsage, event.data.usage as Usage)
      if (event.type === 'agent.end' && event.depth === 1) {
        heard.childEnds.set(event.agent_id!, { status: String(event.data.status), terminal_reason: String(event.data.terminal_reason) })
      }
      if (event.type === 'job.end') heard.jobEnd = event
      if (event.type === 'error') heard.errors.push(String(event.data.message))
    }
  })
  return heard
}

/** The main process's resident memory, sampled every `everyMs` until stopped; returns the peak in bytes. */
export function sampleRss(everyMs = 100): () => number {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), everyMs)
  return () => {
    clearInterval(timer)
    return Math.max(peak, process.memoryUsage().rss)
  }
}

/** What the database holds of a job, read on a connection of its own: events by type and `llm.call` usage. */
export function storedJob(dbFile: string, jobId: string): { byType: Map<string, number>; total: number; llmUsage: Usage } {
  const db = openDatabase(dbFile)
  try {
    const rows = db.prepare('SELECT type, count(*) AS n FROM events WHERE job_id = ? GROUP BY type').all(jobId) as {
      type: string
      n: number
    }[]
    const sums = db
      .prepare(
        `SELECT sum(json_extract(data, '$.usage.input_tokens')) AS input_tokens, sum(json_extract(data, '$.usage.output_tokens')) AS output_tokens,
          sum(json_extract(data, '$.usage.cache_read_tokens')) AS cache_read_tokens, sum(json_extract(data, '$.usage.cache_write_tokens')) AS cache_write_tokens,
          sum(json_extract(data, '$.usage.reasoning_tokens')) AS reasoning_tokens
        FROM events WHERE job_id = ? AND type = 'llm.call'`,
      )
      .get(jobId) as Usage
    const byType = new Map(rows.map((row) => [row.type, row.n]))
    return { byType, total: rows.reduce((sum, row) => sum + row.n, 0), llmUsage: sums }
  } finally {
    db.close()
  }
}

/** Lines of a text file, counted as it streams. */
export async function countLines(file: string): Promise<number> {
  let lines = 0
  for await (const _line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) lines++
  return lines
}

const agentSource = fileURLToPath(new URL('../agent/main.ts', import.meta.url))

/**
 * Agent processes from the current source, bundled once into `dir` (under a second), instead of
 * each of 200 processes compiling it again with tsx (about 0.8 s of CPU each on top of the 0.15 s
 * a bundled agent takes to start). The same source and the same Node as `testAgentHost`.
 */
export async function bundledAgentHost(dir: string): Promise<ForkProcessHost> {
  const entry = path.join(dir, 'agent.mjs')
  await build({
    entryPoints: [agentSource],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Bundled CommonJS dependencies still call require() for Node's own modules.
    banner: {
      js: "import { createRequire as arborCreateRequire } from 'node:module'; const require = arborCreateRequire(import.meta.url);",
    },
  })
  return new ForkProcessHost({ entry, execArgv: [] })
}
