/**
 * The one way a benchmark reports a figure. `record` prints it with its baseline, ratio and goal,
 * and, under `npm run bench`, appends it to the run's results file (ARBOR_BENCH_RESULTS, one JSON
 * line per figure); bench/run.ts merges those into bench/results.json with the machine at the
 * end. A bench run on its own only prints. Usage:
 *
 *   record({ name: 'store.writer', value: 412_000, unit: 'events/s', baseline: 450_000, goal: { atLeast: 0.9 } })
 *
 * `ratio` is value / baseline unless given (pass it when a lower value is better and you want the
 * ratio the other way round). The goal is on the ratio unless `on: 'value'`.
 */
import { appendFileSync } from 'node:fs'

export interface Goal {
  atLeast?: number
  atMost?: number
  /** What the bound applies to. Default 'ratio'. */
  on?: 'ratio' | 'value'
}

export interface Figure {
  name: string
  value: number
  unit: string
  baseline: number | null
  ratio?: number | null
  goal?: Goal | null
}

export interface Result {
  name: string
  value: number
  unit: string
  baseline: number | null
  ratio: number | null
  /** The goal as text, e.g. "ratio >= 0.9", or null for a figure that is only reported. */
  goal: string | null
  met: boolean | null
  /** When and on which Node the figure was measured: stamped by bench/run.ts, since a run of named benches keeps the others' figures. */
  measured_at?: string
  node?: string
}

/** Env var naming the JSON-lines file of the current `npm run bench` run. */
export const resultsFileVariable = 'ARBOR_BENCH_RESULTS'

export function record(figure: Figure): Result {
  const ratio = figure.ratio !== undefined ? figure.ratio : figure.baseline ? figure.value / figure.baseline : null
  const result: Result = {
    name: figure.name,
    value: figure.value,
    unit: figure.unit,
    baseline: figure.baseline,
    ratio,
    goal: figure.goal ? describeGoal(figure.goal) : null,
    met: figure.goal ? meets(figure.goal, figure.value, ratio) : null,
  }
  console.log(formatResult(result))
  const file = process.env[resultsFileVariable]
  if (file) appendFileSync(file, JSON.stringify(result) + '\n')
  return result
}

export function formatResult(result: Result): string {
  const number = (value: number | null) =>
    value === null ? '-' : value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 3 : 0 })
  const verdict = result.met === null ? '' : result.met ? '  met' : '  MISSED'
  return (
    `${result.name.padEnd(40)} ${number(result.value).padStart(12)} ${result.unit.padEnd(9)} baseline ${number(result.baseline).padStart(12)}` +
    `  ratio ${result.ratio === null ? '-' : result.ratio.toFixed(3)}${result.goal ? `  goal ${result.goal}` : ''}${verdict}`
  )
}

function describeGoal(goal: Goal): string {
  const on = goal.on ?? 'ratio'
  const bounds = [goal.atLeast !== undefined ? `>= ${goal.atLeast}` : null, goal.atMost !== undefined ? `<= ${goal.atMost}` : null]
  return `${on} ${bounds.filter(Boolean).join(' and ')}`
}

function meets(goal: Goal, value: number, ratio: number | null): boolean {
  const measured = (goal.on ?? 'ratio') === 'ratio' ? ratio : value
  if (measured === null || !Number.isFinite(measured)) return false
  return (goal.atLeast === undefined || measured >= goal.atLeast) && (goal.atMost === undefined || measured <= goal.atMost)
}
