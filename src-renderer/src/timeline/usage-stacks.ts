import type { Timeline } from '@core/trace/timeline'
import type { StackBy, UsageMetric } from '../store/types'

export interface UsageStack {
  key: string
  label: string
  /** This group's own running total at each x. */
  own: number[]
  /** This group's total plus every group drawn below it: the top edge of its band. */
  top: number[]
}

export interface UsageStacks {
  /** Seconds since the job started, ascending (model calls of different agents may finish out of order). */
  xs: number[]
  /** Bottom band first. */
  stacks: UsageStack[]
}

/** Past this many groups the smallest share one band, so 2,000 agents still read as a few bands. */
export const maxBands = 8
export const otherKey = '\u0000other'

/**
 * The job's cumulative tokens (or cost) over time, one band per agent or per profile, biggest at
 * the bottom: one x per model call. Pure, so the plot's data is tested without a canvas.
 */
export function usageStacks(timeline: Timeline, stackBy: StackBy, metric: UsageMetric, startMs: number): UsageStacks {
  const points = [...timeline.points].sort((a, b) => a.ms - b.ms)
  const groupOf = (agentId: string): string => (stackBy === 'agent' ? agentId : (timeline.lanes[agentId]?.profile ?? '?'))
  const valueOf = (point: (typeof points)[number]): number => (metric === 'tokens' ? point.tokens : (point.cost_usd ?? 0))

  const totals = new Map<string, number>()
  for (const point of points) totals.set(groupOf(point.agent_id), (totals.get(groupOf(point.agent_id)) ?? 0) + valueOf(point))
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
  }))
  for (const point of points) {
    running[bandOf.get(groupOf(point.agent_id)) ?? other]! += valueOf(point)
    xs.push((point.ms - startMs) / 1000)
    let sum = 0
    for (let band = 0; band < keys.length; band++) {
      sum += running[band]!
      stacks[band]!.own.push(running[band]!)
      stacks[band]!.top.push(sum)
    }
  }
  return { xs, stacks }
}

function labelOf(timeline: Timeline, stackBy: StackBy, key: string, others: number): string {
  if (key === otherKey) return `${others} more ${stackBy === 'agent' ? 'agents' : 'profiles'}`
  return stackBy === 'agent' ? (timeline.lanes[key]?.label ?? key) : key
}
