import { createHash } from 'node:crypto'
import { defaultBaseUrls } from '../settings/providers'
import { eventFromRow, type EventRow } from '../store/rows'
import type { EventOf, TraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import type { Usage } from '../trace/usage'

/**
 * One job's events as OpenTelemetry spans, following the GenAI semantic conventions: the job is an
 * `invoke_workflow` span, each agent an `invoke_agent` span (a subagent under the `execute_tool
 * task` span that spawned it), each model call a `chat` span and each tool call an `execute_tool`
 * span, plus `arbor.*` attributes for depth, status and budgets. Both the OTLP JSON file
 * (store/otlp.ts) and the OTLP/HTTP push (push.ts) consume these records, so they never disagree.
 *
 * Fed events in seq order, it hands back each span when it ends: only open spans are held.
 *
 * A follow-up (`agent.resume`) is a run of its own: a new `invoke_agent` span for the agent,
 * started when it resumed, under the job's span (under the parent's `execute_tool task` span for
 * a parent's `resume`), with its calls under it; so a collector shows the runs in order. The
 * job's span then lasts to its last `job.end`: a `job.end` is held until the trace shows the job
 * did not run again.
 */

/** OTLP span kinds as the proto numbers them. */
export const spanKind = { internal: 1, client: 3 } as const
/** OTLP status codes: unset, ok, error. */
export const statusCode = { unset: 0, ok: 1, error: 2 } as const

/** A double that stays a double when integral (a cost of 0 or 1 USD), unlike a bare number. */
export interface DoubleValue {
  double: number
}
/** A bare number is an integer attribute (token counts, steps, depth); doubles are wrapped. */
export type AttributeValue = string | number | boolean | string[] | DoubleValue
export type Attributes = Record<string, AttributeValue>

export interface SpanRecord {
  traceId: string
  spanId: string
  /** null for the job's span, the root of the trace. */
  parentSpanId: string | null
  name: string
  kind: (typeof spanKind)[keyof typeof spanKind]
  startNs: bigint
  endNs: bigint
  attributes: Attributes
  status: { code: (typeof statusCode)[keyof typeof statusCode]; message?: string }
  /** Span events, when it has any: each file a tool call changed (`arbor.file.change`). */
  events?: SpanEvent[]
}

export interface SpanEvent {
  name: string
  timeNs: bigint
  attributes: Attributes
}

export const instrumentationScope = { name: 'arbor', version: '1' } as const

export function resourceAttributes(job: Job): Attributes {
  return { 'service.name': 'arbor', 'arbor.job.id': job.id, 'arbor.project': job.project }
}

interface OpenSpan extends Omit<SpanRecord, 'traceId' | 'endNs' | 'status'> {
  /** The newest `error` event's message of the span's agent, for the status when it fails. */
  lastError?: string
}

export class JobSpans {
  readonly traceId: string
  private readonly jobSpanId: string
  private readonly provider: string
  private readonly server: { address: string; port: number } | null
  private readonly open = new Map<string, OpenSpan>()
  /** child agent id → the parent's `task` call that asked for it, until the child starts. */
  private readonly spawnCalls = new Map<string, string>()
  /** agent id → the span of its current run, for an agent that was resumed (its first run's id otherwise). */
  private readonly runSpans = new Map<string, string>()
  /** agent id → how many runs it has had, and its label (a resumed run's span is named after it). */
  private readonly runs = new Map<string, number>()
  private readonly labels = new Map<string, string>()
  /** `agent/call` of tool calls an interruption cut short (their spans ended at the resume). */
  private readonly cutTools = new Set<string>()
  /** The job's latest `job.end`, held until the job runs again (a follow-up) or the trace ends. */
  private heldJobEnd: { ns: bigint; status: string; attributes: Attributes } | null = null
  private lastNs = 0n

  constructor(private readonly job: Job) {
    this.traceId = hexId(`arbor/${job.id}`, 32)
    this.jobSpanId = hexId(`${this.traceId}/job`, 16)
    // gen_ai.provider.name is required on invoke_agent spans.
    this.provider = job.settings.provider
    this.server = serverOf(job)
  }

  /** The spans this event ends (most events end none); a stored row is read as its typed event. */
  event(row: EventRow): SpanRecord[] {
    return this.fold(eventFromRow(row))
  }

  private fold(event: TraceEvent): SpanRecord[] {
    const ns = nanos(event.ts)
    if (ns > this.lastNs) this.lastNs = ns
    const agentId = event.agent_id ?? ''
    switch (event.type) {
      case 'job.start':
        this.start('job', {
          spanId: this.jobSpanId,
          parentSpanId: null,
          name: 'invoke_workflow arbor',
          kind: spanKind.internal,
          startNs: ns,
          attributes: {
            'gen_ai.operation.name': 'invoke_workflow',
            'gen_ai.workflow.name': 'arbor',
            ...defined({
              'arbor.job.task': event.data.task,
              'arbor.budget.job_tokens': int(this.job.settings.job_token_budget),
              'arbor.budget.job_cost_usd': double(this.job.settings.job_cost_budget),
            }),
          },
        })
        return []
      case 'job.end':
        this.heldJobEnd = {
          ns,
          status: event.data.status,
          attributes: { 'arbor.status': event.data.status, ...usageAttributes(event.data) },
        }
        return []
      case 'agent.resume': {
        this.heldJobEnd = null
        const { data } = event
        const runs = (this.runs.get(agentId) ?? 1) + 1
        this.runs.set(agentId, runs)
        const spanId = hexId(`${this.traceId}/agent/${agentId}/run/${runs}`, 16)
        if (data.by === 'parent' && data.call_id) this.spawnCalls.set(agentId, data.call_id)
        // A parent's `resume` hangs under its task call; a follow-up under the parent's (newest) run, or the job.
        const parentSpanId =
          data.by === 'parent'
            ? this.parentOfAgent(agentId, event.parent_id)
            : event.parent_id
              ? this.agentSpanId(event.parent_id)
              : this.jobSpanId
        this.runSpans.set(agentId, spanId)
        this.start(`agent/${agentId}`, {
          spanId,
          parentSpanId,
          name: `invoke_agent ${this.labels.get(agentId) ?? agentId} (${data.by === 'user' ? 'follow-up' : 'resumed'})`,
          kind: spanKind.internal,
          startNs: ns,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.provider.name': this.provider,
            'gen_ai.agent.id': agentId,
            'arbor.resume.by': data.by,
            'arbor.run': runs,
            ...defined({ 'gen_ai.agent.name': this.labels.get(agentId), 'arbor.depth': int(event.depth ?? 0) }),
          },
        })
        return []
      }
      case 'control':
        // An interrupted job resumed: its job span goes on to the next job.end.
        if (event.data.action === 'resume_job') this.heldJobEnd = null
        return []
      case 'agent.restart': {
        // A crash restart goes on in the same run; after an interruption the sweep ended the run's span.
        if (event.data.cause !== 'interrupted') return []
        const ended = this.closeToolSpans(agentId, ns)
        const runs = (this.runs.get(agentId) ?? 1) + 1
        this.runs.set(agentId, runs)
        const spanId = hexId(`${this.traceId}/agent/${agentId}/run/${runs}`, 16)
        const parentSpanId = event.parent_id ? this.agentSpanId(event.parent_id) : this.jobSpanId
        this.runSpans.set(agentId, spanId)
        const label = this.labels.get(agentId) ?? event.data.label ?? agentId
        this.start(`agent/${agentId}`, {
          spanId,
          parentSpanId,
          name: `invoke_agent ${label} (resumed)`,
          kind: spanKind.internal,
          startNs: ns,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.provider.name': this.provider,
            'gen_ai.agent.id': agentId,
            'arbor.resume.by': 'interrupted',
            'arbor.run': runs,
            ...defined({ 'gen_ai.agent.name': label, 'arbor.depth': int(event.depth ?? 0) }),
          },
        })
        return ended
      }
      case 'agent.start': {
        const { data } = event
        this.labels.set(agentId, data.label || data.profile)
        this.start(`agent/${agentId}`, {
          spanId: this.agentSpanId(agentId),
          parentSpanId: this.parentOfAgent(agentId, event.parent_id),
          name: `invoke_agent ${data.label || data.profile}`.trim(),
          kind: spanKind.internal,
          startNs: ns,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.provider.name': this.provider,
            'gen_ai.agent.id': agentId,
            ...defined({
              'gen_ai.agent.name': data.label,
              'gen_ai.request.model': data.model ?? undefined,
              'arbor.profile': data.profile,
              'arbor.depth': int(event.depth ?? 0),
              'arbor.budget.max_steps': int(data.max_steps),
              'arbor.budget.context_tokens': int(data.context_token_budget),
              'arbor.budget.total_tokens': int(data.total_token_budget),
            }),
          },
        })
        return []
      }
      case 'agent.end': {
        const { status, terminal_reason: reason, steps } = event.data
        return this.close(`agent/${agentId}`, ns, status === 'completed' || status === 'partial', reason, `agent ${status} (${reason})`, {
          'arbor.status': status,
          'arbor.terminal_reason': reason,
          ...defined({ 'arbor.steps': int(steps) }),
          ...usageAttributes(event.data),
        })
      }
      case 'llm.call':
        return [this.chatSpan(event, ns)]
      case 'agent.wait':
        return this.waitSpan(event, ns)
      case 'tool.call': {
        const { call_id: callId, name } = event.data
        // A call asked again after an interruption (its first span ended then) gets a span of its own.
        const again = this.cutTools.has(`${agentId}/${callId}`) ? '/again' : ''
        this.start(`tool/${agentId}/${callId}`, {
          spanId: hexId(`${this.traceId}/tool/${agentId}/${callId}${again}`, 16),
          parentSpanId: this.agentSpanId(agentId),
          name: `execute_tool ${name}`.trim(),
          kind: spanKind.internal,
          startNs: ns,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.type': 'function',
            ...defined({ 'gen_ai.tool.name': name || undefined, 'gen_ai.tool.call.id': callId || undefined }),
          },
        })
        return []
      }
      case 'tool.result': {
        const { ok, call_id: callId, output, truncated } = event.data
        return this.close(`tool/${agentId}/${callId}`, ns, ok, 'tool_error', firstLine(output) ?? 'the tool failed', {
          'arbor.tool.truncated': truncated,
        })
      }
      case 'file.change': {
        // On the span of the tool call that made it (docs/otlp.md); contents never go to a collector.
        const { data } = event
        const span = data.by_tool_call ? this.open.get(`tool/${agentId}/${data.by_tool_call}`) : undefined
        if (!span) return []
        const change: SpanEvent = {
          name: 'arbor.file.change',
          timeNs: ns,
          attributes: defined({
            'arbor.file.path': data.path,
            'arbor.file.change.kind': data.kind,
            'arbor.file.from_path': data.from_path,
            'arbor.file.bytes_before': int(data.bytes_before),
            'arbor.file.bytes_after': int(data.bytes_after),
            'arbor.file.hash_before': data.hash_before ?? undefined,
            'arbor.file.hash_after': data.hash_after ?? undefined,
            'arbor.file.content_stored': data.content_stored,
          }),
        }
        span.events = [...(span.events ?? []), change]
        return []
      }
      case 'subagent.request':
      case 'subagent.held':
      case 'subagent.queued':
      case 'subagent.start': {
        const { child_agent_id: child, call_id: callId } = event.data
        if (callId && !this.open.has(`agent/${child}`)) this.spawnCalls.set(child, callId)
        return []
      }
      case 'subagent.denied':
      case 'subagent.end':
        this.spawnCalls.delete(event.data.child_agent_id)
        return []
      case 'error': {
        const span = this.open.get(event.agent_id ? `agent/${event.agent_id}` : 'job')
        if (span && event.data.message) span.lastError = event.data.message
        return []
      }
      default:
        return []
    }
  }

  /** Spans still open (a job exported while it runs): they end at the newest event, status unset; the job's at its last end. */
  end(): SpanRecord[] {
    const ended = this.heldJobEnd
    this.heldJobEnd = null
    const job = ended
      ? this.close('job', ended.ns, ended.status === 'completed', ended.status, `job ${ended.status}`, ended.attributes)
      : []
    const rest = [...this.open.values()].map((span) => finish(span, this.traceId, this.lastNs, { code: statusCode.unset }, {}))
    this.open.clear()
    this.spawnCalls.clear()
    return [...job, ...rest]
  }

  /** The agent's tool calls still open when its job was interrupted: ended there, as errors. */
  private closeToolSpans(agentId: string, ns: bigint): SpanRecord[] {
    const prefix = `tool/${agentId}/`
    return [...this.open.keys()]
      .filter((key) => key.startsWith(prefix))
      .flatMap((key) => {
        this.cutTools.add(key.slice('tool/'.length))
        return this.close(key, ns, false, 'interrupted', 'the job was interrupted while the tool ran', {})
      })
  }

  private agentSpanId(agentId: string): string {
    return this.runSpans.get(agentId) ?? hexId(`${this.traceId}/agent/${agentId}`, 16)
  }

  /** A subagent hangs under its parent's `execute_tool task` span while that is open, else under the parent agent. */
  private parentOfAgent(agentId: string, parentId: string | null): string {
    if (!parentId) return this.jobSpanId
    const callId = this.spawnCalls.get(agentId)
    this.spawnCalls.delete(agentId)
    const toolSpan = callId ? this.open.get(`tool/${parentId}/${callId}`) : undefined
    return toolSpan?.spanId ?? this.agentSpanId(parentId)
  }

  private chatSpan(event: EventOf<'llm.call'>, ns: bigint): SpanRecord {
    const { data } = event
    const { model, aborted } = data
    const provider = data.provider || this.provider
    const remote = provider !== 'scripted'
    const started = ns - BigInt(Math.max(0, Math.round(data.duration_ms))) * 1_000_000n
    const span: OpenSpan = {
      spanId: hexId(`${this.traceId}/chat/${event.seq}`, 16),
      parentSpanId: this.agentSpanId(event.agent_id ?? ''),
      name: `chat ${model}`.trim(),
      kind: remote ? spanKind.client : spanKind.internal,
      startNs: started,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': provider,
        ...defined({
          'gen_ai.request.model': model || undefined,
          'server.address': remote ? this.server?.address : undefined,
          'server.port': remote ? this.server?.port : undefined,
          'gen_ai.response.finish_reasons': data.finish_reason ? [data.finish_reason] : undefined,
          'gen_ai.response.model': data.response_model,
          'gen_ai.response.id': data.response_id,
        }),
        ...usageAttributes(data),
      },
    }
    if (!aborted) return finish(span, this.traceId, ns, { code: statusCode.ok }, {})
    return finish(span, this.traceId, ns, { code: statusCode.error, message: `call cut short: ${aborted}` }, { 'error.type': 'aborted' })
  }

  /**
   * A wait (a rate limit, a budget) is an `arbor.wait <reason>` span under the agent's, from its
   * first start to its end; a start while it is open (the next try) updates its attributes.
   */
  private waitSpan(event: EventOf<'agent.wait'>, ns: bigint): SpanRecord[] {
    const { data } = event
    const key = `wait/${event.agent_id ?? ''}`
    if (data.phase === 'end') {
      const extra = defined({ 'arbor.wait.outcome': data.outcome, 'arbor.wait.waited_ms': int(data.waited_ms) })
      return this.close(key, ns, data.outcome !== 'gave_up', 'gave_up', 'gave up waiting', extra)
    }
    const attributes = defined({
      'arbor.wait.reason': data.reason,
      'arbor.wait.message': data.message,
      'arbor.wait.until': data.until ?? undefined,
      'arbor.wait.provider': data.provider,
      'http.response.status_code': int(data.status),
      'arbor.wait.attempt': int(data.attempt),
    })
    const open = this.open.get(key)
    if (open) Object.assign(open.attributes, attributes)
    else {
      this.start(key, {
        spanId: hexId(`${this.traceId}/wait/${event.seq}`, 16),
        parentSpanId: this.agentSpanId(event.agent_id ?? ''),
        name: `arbor.wait ${data.reason}`,
        kind: spanKind.internal,
        startNs: ns,
        attributes,
      })
    }
    return []
  }

  private start(key: string, span: OpenSpan): void {
    this.open.set(key, span)
  }

  private close(key: string, endNs: bigint, ok: boolean, errorType: string, errorMessage: string, extra: Attributes): SpanRecord[] {
    const span = this.open.get(key)
    if (!span) return []
    this.open.delete(key)
    if (ok) return [finish(span, this.traceId, endNs, { code: statusCode.ok }, extra)]
    const message = span.lastError ? `${errorMessage}: ${span.lastError}` : errorMessage
    return [finish(span, this.traceId, endNs, { code: statusCode.error, message }, { ...extra, 'error.type': errorType })]
  }
}

function finish(span: OpenSpan, traceId: string, endNs: bigint, status: SpanRecord['status'], extra: Attributes): SpanRecord {
  return {
    traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    startNs: span.startNs,
    endNs: endNs < span.startNs ? span.startNs : endNs,
    attributes: { ...span.attributes, ...extra },
    status,
    ...(span.events?.length ? { events: span.events } : {}),
  }
}

/** GenAI usage counts (always integers) and the cost (always a double). */
function usageAttributes({ usage, cost_usd }: { usage: Usage; cost_usd: number | null }): Attributes {
  return defined({
    'gen_ai.usage.input_tokens': int(usage.input_tokens),
    'gen_ai.usage.output_tokens': int(usage.output_tokens),
    'gen_ai.usage.cache_read.input_tokens': int(usage.cache_read_tokens),
    'gen_ai.usage.cache_creation.input_tokens': int(usage.cache_write_tokens),
    'gen_ai.usage.reasoning.output_tokens': int(usage.reasoning_tokens),
    'arbor.cost_usd': double(cost_usd),
  })
}

/** Where the job's model calls went: its base URL, else the provider's public API; none for the scripted model. */
function serverOf(job: Job): { address: string; port: number } | null {
  const { provider } = job.settings
  if (provider === 'scripted') return null
  const base = job.settings.base_url ?? (provider === 'openai_compatible' ? null : defaultBaseUrls[provider])
  if (!base) return null
  try {
    const url = new URL(base)
    const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443
    return { address: url.hostname.replace(/^\[|\]$/g, ''), port }
  } catch {
    return null
  }
}

function defined(values: Record<string, AttributeValue | undefined>): Attributes {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, AttributeValue] => entry[1] !== undefined))
}

const firstLine = (text: string | undefined): string | undefined => {
  const line = text
    ?.split('\n')
    .find((part) => part.trim())
    ?.trim()
  return line ? (line.length > 200 ? `${line.slice(0, 199)}…` : line) : undefined
}

export const hexId = (seed: string, length: number): string => createHash('sha256').update(seed).digest('hex').slice(0, length)
const nanos = (ts: string): bigint => {
  const ms = Date.parse(ts)
  return Number.isFinite(ms) ? BigInt(ms) * 1_000_000n : 0n
}
const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined)
const double = (value: unknown): DoubleValue | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? { double: value } : undefined
