/**
 * Writes the figures of bench/results.json into docs/benchmarks.md (every figure) and README.md
 * (the figures with a goal), each between `<!-- bench:… -->` markers, leaving the prose around
 * them alone. `npm run bench` runs it after writing the results; `npm run bench:doc` runs it alone;
 * a test fails when either file disagrees with the results.
 *
 *   node --import tsx scripts/benchmarks-doc.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Result } from '../bench/results'

/** A figure as bench/results.ts records it. */
export type BenchResult = Result

export interface BenchFile {
  written_at: string
  machine: { cpu: string; cores: number; node: string; platform: string; load_average_before: number[]; load_average_after: number[] }
  results: BenchResult[]
}

/** What each figure measures, for a reader; a figure not named here is shown by its name. */
const descriptions: Record<string, string> = {
  'store.bare_insert': 'Bare better-sqlite3 insert loop, one transaction (the floor)',
  'store.writer': 'Trace writer with projections, against the bare loop',
  'store.writer_with_script': 'Trace writer, a job with a 1.6 MB script in its settings',
  'store.bare_insert_commit_per_1000': 'The bare loop committing every 1,000 rows, as the writer does',
  'store.writer_vs_same_commits': 'Trace writer against the bare loop committing as it does',
  'store.wal_pages.commit_per_1000': 'WAL pages written by the bare loop committing every 1,000 rows',
  'store.wal_pages.writer': 'WAL pages written by the trace writer',
  'store.import': 'Trace import',
  'export.jsonl': 'JSONL export, against a bare iterate-and-write with lines built by SQLite',
  'export.peak_rss_1m_vs_100k': 'Export peak RSS, 1M events against 100k',
  'supervisor.step_ms': 'One model step under the supervisor',
  'supervisor.overhead_per_step': 'Supervisor overhead per model step',
  'supervisor.overhead_per_step_vs_warm_loop': 'Supervisor overhead per step, against the warm in-process loop',
  'supervisor.cpu_per_step': "The supervisor's CPU per step",
  'agent.ready': 'Agent ready (CLI, serve: from the startup snapshot), against a bare node',
  'agent.idle_rss': 'Idle agent RSS, against a bare node',
  'agent.ready.code_cache': "Agent ready from its code cache (the desktop app's way)",
  'agent.idle_rss.code_cache': 'Idle agent RSS from its code cache',
  'agent.ready.without_snapshot': 'Agent ready from agent.js (no snapshot, no code cache)',
  'agent.idle_rss.without_snapshot': 'Idle agent RSS from agent.js',
  'agent.task_to_first_event.no_pool': "Granted task → child's first event, no warm pool",
  'agent.task_to_first_event.pool': "Granted task → child's first event, p50, warm pool 2",
  'agents.main_rss_at_200_live': 'Main-process RSS, 200 live agents',
  'agents.fan_out_200x10': '200 agents × 10 tool calls, concurrency 50, against one agent',
  'agents.bare_node_200_at_50': '200 bare node processes, 50 at a time (the floor under the fan-out)',
  'agents.fan_out_200x10_vs_bare_node': 'The 200×10 fan-out against 200 bare node processes that say hello over IPC',
  'graph.select_settled.200': 'Graph, 200 agents: select → settled',
  'graph.select_longest_frame.200': 'Graph, 200 agents: longest frame from select to settled',
  'graph.select_settled.2000': 'Graph, 2,000 agents: select → settled',
  'graph.select_longest_frame.2000': 'Graph, 2,000 agents: longest frame from select to settled',
  'graph.select_settled.10000': 'Graph, 10,000 agents: select → settled',
  'graph.select_longest_frame.10000': 'Graph, 10,000 agents: longest frame from select to settled',
  'graph.live_fps.2000_agents.2000_events_per_s': 'Graph live, 2,000 agents, 2,000 events/s: frame rate',
  'graph.live_longest_frame.2000_agents.2000_events_per_s': 'Graph live, 2,000 agents, 2,000 events/s: longest frame',
  'graph.snapshot_copy.200': "Graph, 200 agents: copying the tree's snapshot",
  'graph.snapshot_copy.2000': "Graph, 2,000 agents: copying the tree's snapshot",
  'graph.snapshot_page_copy.2000': 'Graph, 2,000 agents: copying one 1,000-agent page',
  'graph.snapshot_copy.10000': "Graph, 10,000 agents: copying the tree's snapshot",
  'graph.snapshot_page_copy.10000': 'Graph, 10,000 agents: copying one 1,000-agent page',
  'graph.fan_out_500.select_settled': 'Graph, a 500-child fan-out: select → settled',
  'graph.fan_out_500.select_longest_frame': 'Graph, a 500-child fan-out: longest frame',
  'cli.help': "`arbor --help`, against a bare `node -e ''`",
  'cli.version': '`arbor --version`, against a bare node',
  'cli.usage_error': 'A usage error, against a bare node',
  'inspector.open_100k.first_rows': 'Inspector, 100,000 events: click → first rows',
  'inspector.open_100k.all_loaded': 'Inspector, 100,000 events: click → all loaded',
  'inspector.open_100k.longest_frame': 'Inspector, 100,000 events: longest frame while opening',
  'inspector.scroll_100k.fps': 'Inspector, 100,000 events: scroll',
  'inspector.scroll_100k.longest_frame': 'Inspector, 100,000 events: longest frame while scrolling',
  'inspector.scroll_100k.drag_fps': 'Inspector, 100,000 events: dragging the scrollbar',
  'inspector.scroll_100k.drag_longest_frame': 'Inspector, 100,000 events: longest frame while dragging',
  'load.writer': 'The 200-agent load: events written',
  'load.job_end_to_end': 'The 200-agent load: events end to end',
  'load.main_peak_rss': 'The 200-agent load: main-process peak RSS',
  'main_thread.loop_delay_p99': "The 200-agent load: engine thread's loop delay, p99, against an idle process",
  'main_thread.loop_delay_max': "The 200-agent load: engine thread's loop delay, max, against an idle process",
  'main_thread.writer_in_thread.loop_delay_p99': 'The same, p99, with the writer on the engine thread',
  'main_thread.writer_in_thread.loop_delay_max': 'The same, max, with the writer on the engine thread',
  'changes.git_10000.first_command': '`bash` change detection, 10,000-file git repository: the first command (fills the content cache)',
  'changes.git_10000.true': '`bash` change detection, 10,000-file git repository: `true` with detection, against `true` alone (median)',
  'changes.git_10000.true.detection': '`bash` change detection, 10,000-file git repository: what detection adds to `true`',
  'changes.git_10000.edit_one_file':
    '`bash` change detection, 10,000-file git repository: a command editing one file, against it alone (median)',
  'changes.git_10000.edit_one_file.detection': '`bash` change detection, 10,000-file git repository: what detection adds to that command',
  'changes.folder_10000.first_command':
    '`bash` change detection, 10,000-file folder, not a git repository: the first command (fills the content cache)',
  'changes.folder_10000.true':
    '`bash` change detection, 10,000-file folder, not a git repository: `true` with detection, against `true` alone (median)',
  'changes.folder_10000.true.detection': '`bash` change detection, 10,000-file folder, not a git repository: what detection adds to `true`',
  'changes.folder_10000.edit_one_file':
    '`bash` change detection, 10,000-file folder, not a git repository: a command editing one file, against it alone (median)',
  'changes.folder_10000.edit_one_file.detection':
    '`bash` change detection, 10,000-file folder, not a git repository: what detection adds to that command',
}

export function describe(name: string): string {
  return descriptions[name] ?? `\`${name}\``
}

/** A number as a reader wants it: digits grouped, up to three decimals below 10, none above 100. */
export function formatNumber(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '–'
  const digits = Math.abs(value) < 10 ? 3 : Math.abs(value) < 100 ? 1 : 0
  const [whole, fraction] = value.toFixed(digits).split('.') as [string, string | undefined]
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const trimmed = fraction?.replace(/0+$/, '')
  return trimmed ? `${grouped}.${trimmed}` : grouped
}

function verdict(result: BenchResult): string {
  if (result.goal === null) return ''
  return `${result.goal} (${result.met ? 'met' : 'missed'})`
}

function row(result: BenchResult): string {
  const ratio = result.ratio === null ? '' : result.ratio.toFixed(2)
  const baseline = result.baseline === null ? '' : formatNumber(result.baseline)
  return `| ${describe(result.name)} | ${formatNumber(result.value)} ${result.unit} | ${baseline} | ${ratio} | ${verdict(result)} |`
}

const header = ['| Figure | Value | Baseline | Ratio | Goal |', '| --- | --- | --- | --- | --- |']

function machineLine(file: BenchFile): string {
  const { machine } = file
  const load = `${machine.load_average_before[0] ?? '?'} before, ${machine.load_average_after[0] ?? '?'} after`
  return `${machine.cpu}, ${machine.cores} cores, ${machine.platform}, Node ${machine.node}; load average ${load} (the last run, ${file.written_at.slice(0, 10)}).`
}

/** Every figure, grouped by bench (the name's first part), with when each was measured. */
export function renderAll(file: BenchFile): string {
  const lines = [`Machine: ${machineLine(file)}`, '']
  const groups = new Map<string, BenchResult[]>()
  for (const result of file.results) {
    const group = result.name.split('.')[0]!
    groups.set(group, [...(groups.get(group) ?? []), result])
  }
  for (const [group, results] of groups) {
    const dates = [...new Set(results.map((result) => (result.measured_at ?? file.written_at).slice(0, 10)))].sort()
    const nodes = [...new Set(results.map((result) => result.node ?? file.machine.node))].sort()
    lines.push(`### ${group}`, '', `Measured ${dates.join(', ')} on Node ${nodes.join(', ')}.`, '', ...header, ...results.map(row), '')
  }
  return lines.join('\n').trimEnd()
}

/** The figures that have a goal: the README's short table. */
export function renderGoals(file: BenchFile): string {
  const withGoal = file.results.filter((result) => result.goal !== null)
  const missed = withGoal.filter((result) => result.met === false).length
  return [...header, ...withGoal.map(row), '', `${withGoal.length - missed} of ${withGoal.length} goals met. ${machineLine(file)}`].join(
    '\n',
  )
}

/** `text` with what lies between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` replaced. */
export function replaceBlock(text: string, name: string, block: string): string {
  const start = `<!-- bench:${name}:start -->`
  const end = `<!-- bench:${name}:end -->`
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from === -1 || to === -1 || to < from) throw new Error(`no ${start} … ${end} block to fill`)
  return `${text.slice(0, from + start.length)}\n${block}\n${text.slice(to)}`
}

export const repoRoot = resolve(import.meta.dirname, '..')
const targets = [
  { file: 'docs/benchmarks.md', block: 'figures', render: renderAll },
  { file: 'README.md', block: 'goals', render: renderGoals },
]

/** The files as they should be for these results, by path relative to the repository. */
export function expectedDocs(file: BenchFile, root = repoRoot): Map<string, string> {
  const docs = new Map<string, string>()
  for (const target of targets) {
    const text = readFileSync(resolve(root, target.file), 'utf8')
    docs.set(target.file, replaceBlock(text, target.block, target.render(file)))
  }
  return docs
}

export function readResults(root = repoRoot): BenchFile {
  return JSON.parse(readFileSync(resolve(root, 'bench/results.json'), 'utf8')) as BenchFile
}

/** Writes the tables of bench/results.json into the docs; with `check`, writes nothing and returns the paths that disagree. */
export function writeDocs({ check = false } = {}): string[] {
  const stale: string[] = []
  for (const [path, text] of expectedDocs(readResults())) {
    if (readFileSync(resolve(repoRoot, path), 'utf8') === text) continue
    stale.push(path)
    if (!check) writeFileSync(resolve(repoRoot, path), text)
  }
  return stale
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const check = process.argv.includes('--check')
  const stale = writeDocs({ check })
  if (check) for (const path of stale) console.error(`${path} does not show bench/results.json: run npm run bench:doc`)
  else console.log('benchmark figures written to docs/benchmarks.md and README.md')
  process.exit(check && stale.length > 0 ? 1 : 0)
}
