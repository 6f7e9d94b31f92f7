import type { PriceTable } from '../../providers/pricing'
import type { Redactor } from '../../secrets/redact'
import { traceEventSchema, type TraceEvent } from '../../trace/events'
import type { JobSettings } from '../../trace/model'
import { addCost, addUsage, emptyUsage } from '../../trace/usage'
import { StoreError } from '../../store/errors'
import type { TraceHeader } from '../../store/import'
import { agentStream, modelOf, usageByMessage, type StreamItem } from './agent-stream'
import type { SkipCounts } from './entries'
import { linkTranscripts, type AgentPlan } from './links'
import { interleave, type AgentIdentity, type BuiltEvent } from './schedule'
import { readSessionTranscripts } from './transcripts'

export interface ClaudeSession {
  header: TraceHeader
  events: TraceEvent[]
  /** Lines not imported, by entry type (`malformed` for lines that are not JSON objects). */
  skipped: SkipCounts
  /** Claude Code's version, from the session's lines. */
  version: string | null
}

export interface SessionOptions {
  prices?: PriceTable
  /** Known keys found in the session's text are replaced before anything is stored. */
  redactor?: Redactor
  /** The import's time, as `exported_at` of the header; injected for tests. */
  now?: () => Date
}

/**
 * Reads a Claude Code session with every subagent transcript it has (transcripts.ts) and turns
 * it into the events of an Arbor trace: the same events a live job writes, so the store, tree,
 * inspector, export and timeline need nothing of their own for sessions. The job id is the
 * session's, so a session imported twice is found the second time.
 */
export function readClaudeSession(file: string, options: SessionOptions = {}): ClaudeSession {
  const skipped: SkipCounts = {}
  const transcripts = readSessionTranscripts(file, skipped)
  const all = [transcripts.root, ...transcripts.others].flatMap((transcript) => transcript.entries)
  const first = transcripts.root.entries[0]
  if (!first) {
    const onlySidechains = transcripts.others.length > 0
    const why = onlySidechains
      ? "it holds only a subagent's lines (isSidechain): open the session file it belongs to"
      : 'it holds no user or assistant lines'
    throw new StoreError(`Cannot import the Claude Code session ${file}: ${why}`)
  }
  const sessionId = first.sessionId ?? 'unknown'
  const jobId = `job_cc_${sessionId}`
  const root = linkTranscripts(transcripts)
  const plans = flatten(root)
  const context = { usages: usageByMessage(all), counted: new Set<string>(), prices: options.prices }
  const streams = new Map<AgentPlan, StreamItem[]>()
  let usage = emptyUsage()
  let cost: number | null = null
  for (const plan of plans) {
    const { items, totals } = agentStream(plan, context)
    streams.set(plan, items)
    usage = addUsage(usage, totals.usage)
    cost = addCost(cost, totals.cost_usd)
  }
  const identities = new Map(plans.map((plan) => [plan, identityOf(plan, sessionId)]))
  const identity = (plan: AgentPlan): AgentIdentity => identities.get(plan)!
  const agentEvents = interleave(root, streams, identity, jobId)
  const times = all.map((entry) => entry.timestamp).filter((ts): ts is string => ts !== null)
  const startedAt = times.reduce((min, ts) => (Date.parse(ts) < Date.parse(min) ? ts : min), times[0] ?? new Date(0).toISOString())
  const endedAt = agentEvents.at(-1)?.ts ?? startedAt
  const settings: JobSettings = {
    provider: 'anthropic',
    model: modelOf(root) ?? 'unknown',
    light_model: null,
    profile: root.profile,
    max_depth: Math.max(...plans.map((plan) => plan.depth)),
    max_concurrent_children: Math.max(1, ...plans.map((plan) => plan.children.length)),
    job_token_budget: null,
    job_cost_budget: null,
  }
  const project = first.cwd ?? ''
  const jobEvent = (type: 'job.start' | 'job.end', ts: string, data: Record<string, unknown>): BuiltEvent => ({
    type,
    ts,
    job_id: jobId,
    agent_id: null,
    parent_id: null,
    depth: null,
    data,
  })
  const redact = <T>(value: T): T => (options.redactor ? options.redactor.redactDeep(value) : value)
  const built = [
    jobEvent('job.start', startedAt, { task: root.task, settings }),
    ...agentEvents,
    jobEvent('job.end', endedAt, { status: 'completed', usage, cost_usd: cost }),
  ]
  const events = built.map((event, index) => checked({ ...event, seq: index + 1, data: redact(event.data) }))
  const header: TraceHeader = {
    type: 'trace.header',
    format: 'arbor-trace',
    version: 1,
    job: { id: jobId, project, task: redact(root.task), settings, status: 'completed', created_at: startedAt },
    exported_at: (options.now?.() ?? new Date()).toISOString(),
  }
  return { header, events, skipped, version: all.find((entry) => entry.version !== null)?.version ?? null }
}

/** Each event as the trace schema types it; one that does not fit is a bug of this converter, named here. */
function checked(event: BuiltEvent & { seq: number }): TraceEvent {
  const parsed = traceEventSchema.safeParse(event)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new Error(
    `the ${event.type} event built for agent ${event.agent_id} does not fit the trace format: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`,
  )
}

function flatten(root: AgentPlan): AgentPlan[] {
  const out: AgentPlan[] = []
  const walk = (plan: AgentPlan): void => {
    out.push(plan)
    plan.children.forEach(walk)
  }
  walk(root)
  return out
}

/** Agent ids are unique across jobs (docs/trace-format.md): the session id is part of each. */
function identityOf(plan: AgentPlan, sessionId: string): AgentIdentity {
  const id = (of: AgentPlan): string => `agent_cc_${sessionId}_${of.key}`
  return { id: id(plan), parentId: plan.parent ? id(plan.parent) : null, depth: plan.depth }
}
