import type { Timeline } from '@core/trace/timeline'
import type { StackBy, UsageMetric } from '../store/types'

export interface UsageStack {
  key: string
  label: string
  /** This group's own running total at each x. */
  own: number[]
  /** This group's total plus every group drawn below it: the top edge of its band. */
  top: number[]
  /** Cost only: how many of this group's model calls have no price, so its total is a floor, not the cost. */
  unpriced: number
  /** How many model calls this group made. */
  calls: number
}

export interface UsageStacks {
  /** Seconds since the job started, ascending (model calls of different agents may finish out of order). */
  xs: number[]
  /** Bottom band first. */
  stacks: UsageStack[]
  /** Cost only: the models of the calls with no price, most calls first (none for tokens). */
  unpricedModels: string[]
}

/** Past this many groups the smallest share one band, so 2,000 agents still read as a few bands. */
export const maxBands = 8
export const otherKey = '\u0000other'

/**
 * The job's cumulative tokens (or cost) over time, one band per agent or per profile, most tokens at
 * the bottom: one x per model call. Pure, so the plot's data is tested without a canvas.
 */
export function usageStacks(timeline: Timeline, stackBy: StackBy, metric: UsageMetric, startMs: number): UsageStacks {
  const points = [...timeline.points].sort((a, b) => a.ms - b.ms)
  const groupOf = (agentId: string): string => (stackBy === 'agent' ? agentId : (timeline.lanes[agentId]?.profile ?? '?'))
  const valueOf = (point: (typeof points)[number]): number => (metric === 'tokens' ? point.tokens : (point.cost_usd ?? 0))

  // Bands are ranked by tokens for both metrics, so an agent keeps its place and colour when the
  // plot switches between tokens and cost.
  const totals = new Map<string, number>()
  for (const point of points) totals.set(groupOf(point.agent_id), (totals.get(groupOf(point.agent_id)) ?? 0) + point.tokens)
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key]) => key)
  const kept = ranked.length > maxBands ? ranked.slice(0, maxBands - 1) : ranked
  const bandOf = new Map<string, number>(kept.map((key, index) => [key, index]))
  const keys = ranked.length > kept.length ? [...kept, otherKey] : kept
  const other = keys.length - 1

  const xs: number[] = []
  const running = keys.map(() => 0)
  const stacks: UsageStack[] = keys.map((key) => ({
    key,
    label: labelOf(timeline, stackBy, key, ranked.length - kept.length),
    own: [],
    top: [],
    unpriced: 0,
    calls: 0,
  }))
  const unpricedCalls = new Map<string, number>()
  for (const point of points) {
    const band = bandOf.get(groupOf(point.agent_id)) ?? other
    running[band]! += valueOf(point)
    stacks[band]!.calls += 1
    if (metric === 'cost' && point.cost_usd === null) {
      stacks[band]!.unpriced += 1
      unpricedCalls.set(point.model, (unpricedCalls.get(point.model) ?? 0) + 1)
    }
    xs.push((point.ms - startMs) / 1000)
    let sum = 0
    for (let band = 0; band < keys.length; band++) {
      sum += running[band]!
      stacks[band]!.own.push(running[band]!)
      stacks[band]!.top.push(sum)
    }
  }
  const unpricedModels = [...unpricedCalls.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([model]) => model)
  return { xs, stacks, unpricedModels }
}

/**
 * A cost as the plot shows it: "no price" when none of the calls had one, the known part marked
 * as a floor ("≥ $0.12") when some had none, never a made-up $0.
 */
export function costLabel(known: number, unpriced: number, calls: number, format: (value: number) => string): string {
  if (unpriced === 0) return format(known)
  if (unpriced === calls) return 'no price'
  return `≥ ${format(known)}`
}

function labelOf(timeline: Timeline, stackBy: StackBy, key: string, others: number): string {
  if (key === otherKey) return `${others} more ${stackBy === 'agent' ? 'agents' : 'profiles'}`
  return stackBy === 'agent' ? (timeline.lanes[key]?.label ?? key) : key
}
